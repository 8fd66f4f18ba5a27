package io.fleetbus.bench.http;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.http.PoolOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.client.HttpResponse;
import io.vertx.ext.web.client.WebClient;
import io.vertx.ext.web.client.WebClientOptions;

/** A keep-alive Vert.x web client for one hub's HTTP API, with up to {@code connections} pooled connections. */
public final class HubClient implements AutoCloseable {
  private final WebClient client;
  private final int port;
  private final String bearer;

  public HubClient(Vertx vertx, int port, String token, int connections) {
    this.client = WebClient.create(vertx,
      new WebClientOptions().setKeepAlive(true).setTcpNoDelay(true).setDefaultHost("127.0.0.1").setDefaultPort(port),
      new PoolOptions().setHttp1MaxSize(connections));
    this.port = port;
    this.bearer = "Bearer " + token;
  }

  /** POST /api/v1/nodes/{node}/tools/{tool}; fails unless the hub answers 200 with status ok. Returns {@code data}. */
  public Future<JsonObject> callTool(String nodeId, String tool, Buffer encodedArgs) {
    return client.post(port, "127.0.0.1", "/api/v1/nodes/" + nodeId + "/tools/" + tool)
      .putHeader("Authorization", bearer)
      .putHeader("content-type", "application/json")
      .sendBuffer(encodedArgs)
      .compose(resp -> resp.statusCode() == 200 ? ok(resp) : Future.failedFuture(
        new IllegalStateException(tool + " on " + nodeId + " answered " + resp.statusCode() + ": " + resp.bodyAsString())));
  }

  /** POST /api/v1/enrollments for this node (admin token): the one-time enrollment token. */
  public Future<String> enrollmentToken(String nodeId) {
    return enrollment(nodeId).map(answer -> answer.getString("token"));
  }

  /** The whole enrollment answer: the token, the cluster name, and the edge endpoint and pin where the hub has one. */
  public Future<JsonObject> enrollment(String nodeId) {
    return client.post(port, "127.0.0.1", "/api/v1/enrollments").putHeader("Authorization", bearer)
      .sendJsonObject(new JsonObject().put("nodeId", nodeId))
      .compose(resp -> resp.statusCode() == 201 ? Future.succeededFuture(resp.bodyAsJsonObject())
        : Future.failedFuture(new IllegalStateException("enrollment token for " + nodeId + " answered "
          + resp.statusCode() + ": " + resp.bodyAsString())));
  }

  /** POST a JSON body to the API (e.g. /api/v1/calls); fails unless the hub answers 200. Returns the whole answer. */
  public Future<JsonObject> post(String path, JsonObject body) {
    return client.post(port, "127.0.0.1", path).putHeader("Authorization", bearer).sendJsonObject(body)
      .compose(resp -> resp.statusCode() == 200 ? Future.succeededFuture(resp.bodyAsJsonObject())
        : Future.failedFuture(new IllegalStateException("POST " + path + " answered " + resp.statusCode() + ": "
          + resp.bodyAsString())));
  }

  /** GET a JSON document of the API (e.g. /api/v1/nodes). */
  public Future<JsonObject> get(String path) {
    return client.get(port, "127.0.0.1", path).putHeader("Authorization", bearer).send()
      .compose(resp -> resp.statusCode() == 200 ? Future.succeededFuture(resp.bodyAsJsonObject())
        : Future.failedFuture(new IllegalStateException("GET " + path + " answered " + resp.statusCode())));
  }

  /** DELETE a resource of the API; fails unless the hub answers 2xx. */
  public Future<Void> delete(String path) {
    return client.delete(port, "127.0.0.1", path).putHeader("Authorization", bearer).send()
      .compose(resp -> resp.statusCode() / 100 == 2 ? Future.<Void>succeededFuture()
        : Future.failedFuture(new IllegalStateException("DELETE " + path + " answered " + resp.statusCode())));
  }

  private static Future<JsonObject> ok(HttpResponse<Buffer> resp) {
    JsonObject body = resp.bodyAsJsonObject();
    return "ok".equals(body.getString("status")) ? Future.succeededFuture(body.getJsonObject("data", new JsonObject()))
      : Future.failedFuture(new IllegalStateException("call did not succeed: " + body.encode()));
  }

  @Override
  public void close() {
    client.close();
  }
}
