package io.fleetbus.hub.cli;

import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.PrintWriter;
import java.net.ConnectException;
import java.net.URI;
import java.net.UnknownHostException;
import java.net.URLEncoder;
import java.net.http.HttpClient;
import java.net.http.HttpConnectTimeoutException;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.net.http.HttpTimeoutException;
import java.nio.channels.UnresolvedAddressException;
import java.nio.charset.StandardCharsets;
import java.time.Duration;
import java.util.Map;
import java.util.StringJoiner;
import javax.net.ssl.SSLException;

/**
 * The CLI's side of the REST API: one request and its JSON answer; a failure is printed on stderr and ends the
 * command with an exit code that follows its HTTP status ({@link Exit}).
 */
final class HubClient {
  /** Could not reach the hub or read its answer. */
  static final int UNREACHABLE = 1;
  /** The call waits for a person's approval (HTTP 202). */
  static final int PENDING = 3;

  /** {@code audit verify}: the hub says its audit chain is broken or a finished call has no audit record. */
  static final int VERIFY_FAILED = 4;
  private static final Duration CONNECT_TIMEOUT = Duration.ofSeconds(5);

  private final String baseUrl;
  private final String token;
  private final PrintWriter err;
  private final HttpClient http = HttpClient.newBuilder().connectTimeout(CONNECT_TIMEOUT).build();

  HubClient(String baseUrl, String token, PrintWriter err) {
    this.baseUrl = baseUrl.endsWith("/") ? baseUrl.substring(0, baseUrl.length() - 1) : baseUrl;
    this.token = token;
    this.err = err;
  }

  String baseUrl() {
    return baseUrl;
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

  /** The hub's answer: a 2xx status and its JSON body. */
  record Answer(int status, JsonObject body) {
    boolean pending() {
      return status == 202;
    }
  }

  /** Ends the command with {@code code}; what went wrong is already printed. */
  static final class Exit extends RuntimeException {
    final int code;

    Exit(int code) {
      super(null, null, false, false);
      this.code = code;
    }
  }

  Answer get(String path, Map<String, String> query) {
    return send(HttpRequest.newBuilder(uri(path, query)).GET(), 0);
  }

  Answer post(String path, JsonObject body, long waitSeconds) {
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
    try {
      URI uri = URI.create(baseUrl + path + q);
      if (uri.getHost() == null || !uri.getScheme().matches("https?")) {
        throw new IllegalArgumentException("it needs http:// or https:// and a host");
      }
      return uri;
    } catch (IllegalArgumentException e) {
      err.println("fleetbus: --url " + baseUrl + " is not a hub address (" + e.getMessage() + ")");
      err.flush();
      throw new Exit(2);
    }
  }

  private Answer send(HttpRequest.Builder req, long waitSeconds) {
    if (token == null || token.isBlank()) {
      return fail("no token: pass --token, or set FLEETBUS_TOKEN or FLEETBUS_TOKEN_FILE", exitCode(FailureCode.UNAUTHORIZED.code));
    }
    long timeout = 60 + waitSeconds;
    req.header("Authorization", "Bearer " + token.strip()).timeout(Duration.ofSeconds(timeout));
    HttpResponse<String> resp;
    try {
      resp = http.send(req.build(), HttpResponse.BodyHandlers.ofString());
    } catch (IOException e) {
      return fail("cannot reach the hub at " + baseUrl + ": " + why(e, timeout), UNREACHABLE);
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return fail("interrupted while waiting for the hub at " + baseUrl, UNREACHABLE);
    }
    JsonObject body;
    try {
      body = resp.body() == null || resp.body().isBlank() ? new JsonObject() : new JsonObject(resp.body());
    } catch (DecodeException e) {
      return fail("the hub at " + baseUrl + " answered " + resp.statusCode() + " with a body that is not JSON"
        + " (is --url a fleetbus hub?)", UNREACHABLE);
    }
    if (resp.statusCode() >= 400) {
      JsonObject error = body.getJsonObject("error", new JsonObject());
      return fail(resp.statusCode() + " " + FailureCode.of(resp.statusCode()).label + ": "
        + error.getString("message", "(no message)"), exitCode(resp.statusCode()));
    }
    return new Answer(resp.statusCode(), body);
  }

  private Answer fail(String message, int code) {
    err.println("fleetbus: " + message);
    err.flush();
    throw new Exit(code);
  }

  /** Why a request got no answer, in words ({@code ConnectException} has no message of its own). */
  static String why(IOException e, long timeoutSeconds) {
    if (e instanceof HttpConnectTimeoutException) {
      return "no connection within " + CONNECT_TIMEOUT.toSeconds() + " s";
    }
    if (e instanceof HttpTimeoutException) {
      return "no answer within " + timeoutSeconds + " s";
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof UnresolvedAddressException || t instanceof UnknownHostException) {
        return "unknown host";
      }
      if (t instanceof SSLException) {
        return "TLS failed (" + t.getMessage() + ")";
      }
    }
    for (Throwable t = e; t != null; t = t.getCause()) {
      if (t instanceof ConnectException) {
        return "connection refused";
      }
    }
    if (e.getMessage() != null && !e.getMessage().isBlank()) {
      return e.getMessage();
    }
    return e.getClass().getSimpleName();
  }
}
