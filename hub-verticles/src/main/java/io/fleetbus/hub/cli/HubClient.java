package io.fleetbus.hub.cli;

import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.URI;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.StringJoiner;

/** The CLI's side of the REST API: one request, its JSON printed, its status turned into an exit code. */
final class HubClient {
  /** Could not reach the hub or read its answer. */
  static final int UNREACHABLE = 1;
  /** The call waits for a person's approval (HTTP 202). */
  static final int PENDING = 3;

  private final String baseUrl;
  private final String token;
  private final PrintWriter out;
  private final PrintWriter err;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(Duration.ofSeconds(5)).build();

  HubClient(String baseUrl, String token, PrintWriter out, PrintWriter err) {
    this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    this.token = token;
    this.out = out;
    this.err = err;
  }

  /**
   * Exit code for an HTTP status: 0 for success, {@link #PENDING} for 202, and for failures the failure
   * code shifted into 0-255: 4xx → 100-129 (403 → 103), 5xx → 150-154 (503 → 153).
   */
  static int exitCode(int status) {
    if (status == 202) {
      return PENDING;
    }
    if (status >= 200 && status < 300) {
      return 0;
    }
    return status < 500 ? status - 300 : status - 350;
  }

  int get(String path, Map<String, String> query) {
    return send(HttpRequest.newBuilder(uri(path, query)).GET(), 0);
  }

  int post(String path, JsonObject body, long waitSeconds) {
    return send(HttpRequest.newBuilder(uri(path, Map.of())).header("Content-Type", "application/json")
      .POST(HttpRequest.BodyPublishers.ofString(body == null ? "{}" : body.encode())), waitSeconds);
  }

  private URI uri(String path, Map<String, String> query) {
    StringJoiner q = new StringJoiner("&", "?", "").setEmptyValue("");
    query.forEach((k, v) -> {
      if (v != null) {
        q.add(k + "=" + URLEncoder.encode(v, StandardCharsets.UTF_8));
      }
    });
    return URI.create(baseUrl + path + q);
  }

  private int send(HttpRequest.Builder req, long waitSeconds) {
    if (token == null || token.isBlank()) {
      err.println("fleetbus: no token: pass --token, or set FLEETBUS_TOKEN or FLEETBUS_TOKEN_FILE");
      return exitCode(FailureCode.UNAUTHORIZED.code);
    }
    req.header("Authorization", "Bearer " + token.strip()).timeout(Duration.ofSeconds(60 + waitSeconds));
    HttpResponse<String> resp;
    try {
      resp = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      err.println("fleetbus: cannot reach the hub at " + baseUrl + ": " + e.getMessage());
      return UNREACHABLE;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return UNREACHABLE;
    }
    JsonObject body;
    try {
      body = resp.body() == null || resp.body().isBlank() ? new JsonObject() : new JsonObject(resp.body());
    } catch (DecodeException e) {
      err.println("fleetbus: the hub answered " + resp.statusCode() + " with a body that is not JSON");
      return UNREACHABLE;
    }
    if (resp.statusCode() >= 400) {
      JsonObject error = body.getJsonObject("error", new JsonObject());
      err.println("fleetbus: " + resp.statusCode() + " " + FailureCode.of(resp.statusCode()).label + ": "
        + error.getString("message", "(no message)"));
    } else {
      out.println(body.encodePrettily());
      if (resp.statusCode() == 202 && body.getString("approvalId") != null) {
        err.println("fleetbus: waiting for approval " + body.getString("approvalId") + " (fleetbus approve "
          + body.getString("approvalId") + "); then: fleetbus result " + body.getString("callId"));
      }
    }
    out.flush();
    err.flush();
    return exitCode(resp.statusCode());
  }
}
