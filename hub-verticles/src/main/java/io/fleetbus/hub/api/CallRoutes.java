package io.fleetbus.hub.api;

import io.fleetbus.hub.routing.Selector;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.catalog.Tiers;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.catalog.ToolSpec;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.UUID;

/** Tool calls over REST: authenticate (done before), check role and schema, hand the call to approval. */
final class CallRoutes {
  private static final DeliveryOptions LOCAL = new DeliveryOptions().setLocalOnly(true);
  private static final long MAX_WAIT_MS = 600_000;

  private final Vertx vertx;
  private final ToolCatalog catalog;
  private final long callTimeoutMs;

  CallRoutes(Vertx vertx, ToolCatalog catalog, long callTimeoutMs) {
    this.vertx = vertx;
    this.catalog = catalog;
    this.callTimeoutMs = callTimeoutMs;
  }

  void mount(Router api) {
    api.post("/nodes/:nodeId/tools/:tool").handler(this::callNode);
    api.post("/calls").handler(this::callByTarget);
    api.post("/tools/:tool").handler(this::callHubTool);
    api.get("/calls/:callId").handler(this::getCall);
    api.post("/calls/:callId/cancel").handler(this::cancel);
  }

  /** A hub-side tool (list_nodes, search_tools …): the same role, schema and approval path, answered by the hub. */
  private void callHubTool(RoutingContext ctx) {
    try {
      submit(ctx, ctx.pathParam("tool"), body(ctx), null, null);
    } catch (FleetException e) {
      HttpErrors.send(ctx, e.code(), e.getMessage());
    }
  }

  private void callNode(RoutingContext ctx) {
    try {
      submit(ctx, ctx.pathParam("tool"), body(ctx), ctx.pathParam("nodeId"), null);
    } catch (FleetException e) {
      HttpErrors.send(ctx, e.code(), e.getMessage());
    }
  }

  /** {@code {tool, args, node}} or {@code {tool, args, labels, platform, minCapabilityTier, mode, maxConcurrency, maxErrors}}. */
  private void callByTarget(RoutingContext ctx) {
    try {
      JsonObject body = body(ctx);
      String tool = body.getString("tool");
      if (tool == null) {
        throw FailureCode.BAD_REQUEST.exception("the body needs 'tool' (and 'args', and 'node' or a selector such as 'labels')");
      }
      Object args = body.getValue("args", new JsonObject());
      if (!(args instanceof JsonObject)) {
        throw FailureCode.BAD_REQUEST.exception("'args' must be a JSON object of the tool's arguments");
      }
      String node = body.getString("node");
      JsonObject selector = null;
      if (node == null) {
        JsonObject sel = body.copy();
        sel.remove("tool");
        sel.remove("args");
        selector = Selector.fromJson(sel).toJson();
      }
      submit(ctx, tool, (JsonObject) args, node, selector);
    } catch (FleetException e) {
      HttpErrors.send(ctx, e.code(), e.getMessage());
    } catch (ClassCastException e) {
      HttpErrors.send(ctx, FailureCode.BAD_REQUEST, "a field of the body has the wrong type: " + e.getMessage());
    }
  }

  private void submit(RoutingContext ctx, String tool, JsonObject rawArgs, String nodeId, JsonObject selector) {
    Caller caller = Caller.of(ctx);
    ToolCall call;
    long waitMs;
    try {
      ToolSpec spec = catalog.require(tool);
      boolean targeted = nodeId != null || selector != null;
      if (spec.runsOnHub() && targeted) {
        throw FailureCode.BAD_REQUEST.exception("tool " + spec.name() + " runs on the hub, not on a node: POST /api/v1/tools/"
          + spec.name());
      }
      if (!spec.runsOnHub() && !targeted) {
        throw FailureCode.BAD_REQUEST.exception("tool " + spec.name() + " runs on a node: POST /api/v1/nodes/{nodeId}/tools/"
          + spec.name() + " or POST /api/v1/calls with a node or labels");
      }
      if (Tiers.maxToolTier(caller.roles()) < spec.tier()) {
        throw FailureCode.FORBIDDEN.exception("tool " + spec.name() + " is tier " + spec.tier() + ": it needs the role '"
          + Tiers.roleFor(spec.tier()) + "' or higher; your roles are " + caller.roles());
      }
      JsonObject args = catalog.validate(spec, rawArgs);
      waitMs = waitParam(ctx);
      String idem = ctx.request().getHeader("Idempotency-Key");
      call = new ToolCall(UUID.randomUUID().toString(), idem, caller.subject(), caller.roles(), spec.name(), args,
        nodeId, selector, timeoutFor(spec, args), false, null);
    } catch (FleetException e) {
      HttpErrors.send(ctx, e.code(), e.getMessage());
      return;
    }
    vertx.eventBus().<ToolResult>request(Addresses.HUB_APPROVE, call,
        new DeliveryOptions(LOCAL).setSendTimeout(call.timeoutMs() + 10_000))
      .map(Message::body)
      .onSuccess(result -> {
        if (ToolResult.PENDING.equals(result.status())) {
          if (waitMs > 0) {
            awaitCall(ctx, call.callId(), waitMs);
          } else {
            json(ctx, 202, result.toJson().put("approvalId", result.data().getString("approvalId")));
          }
        } else {
          json(ctx, 200, result.toJson());
        }
      })
      .onFailure(err -> HttpErrors.fail(ctx, err));
  }

  private long timeoutFor(ToolSpec spec, JsonObject args) {
    Integer seconds = args.getInteger("timeout_seconds");
    // the node needs the tool's own time plus its SIGTERM→SIGKILL grace before it can answer
    return seconds == null ? callTimeoutMs : Math.max(callTimeoutMs, seconds * 1000L + 5000);
  }

  private void cancel(RoutingContext ctx) {
    Caller caller = Caller.of(ctx);
    vertx.eventBus().<JsonObject>request(Addresses.HUB_APPROVALS, new JsonObject().put("callId", ctx.pathParam("callId"))
          .put("by", caller.subject()).put("roles", new io.vertx.core.json.JsonArray(caller.roles())),
        new DeliveryOptions(LOCAL).addHeader("action", "cancel").setSendTimeout(10_000))
      .map(Message::body)
      .onSuccess(body -> json(ctx, 200, body))
      .onFailure(err -> HttpErrors.fail(ctx, err));
  }

  private void getCall(RoutingContext ctx) {
    long waitMs;
    try {
      waitMs = waitParam(ctx);
    } catch (FleetException e) {
      HttpErrors.send(ctx, e.code(), e.getMessage());
      return;
    }
    awaitCall(ctx, ctx.pathParam("callId"), waitMs);
  }

  /** Answers with the call record once it is finished or {@code waitMs} have passed. */
  private void awaitCall(RoutingContext ctx, String callId, long waitMs) {
    vertx.eventBus().<JsonObject>request(Addresses.HUB_APPROVALS,
        new JsonObject().put("callId", callId).put("waitMs", waitMs),
        new DeliveryOptions(LOCAL).addHeader("action", "call").setSendTimeout(waitMs + 5000))
      .map(Message::body)
      .onSuccess(rec -> {
        JsonObject error = rec.getJsonObject("error");
        int status = switch (rec.getString("status")) {
          case ToolResult.OK -> 200;
          case ToolResult.ERROR -> error == null ? 500 : error.getInteger("code", 500);
          default -> 202;
        };
        json(ctx, status, rec);
      })
      .onFailure(err -> HttpErrors.fail(ctx, err));
  }

  private static long waitParam(RoutingContext ctx) {
    String wait = ctx.request().getParam("wait");
    if (wait == null) {
      return 0;
    }
    try {
      long seconds = Long.parseLong(wait);
      if (seconds < 0 || seconds * 1000 > MAX_WAIT_MS) {
        throw new NumberFormatException();
      }
      return seconds * 1000;
    } catch (NumberFormatException e) {
      throw FailureCode.BAD_REQUEST.exception("wait must be a whole number of seconds from 0 to " + MAX_WAIT_MS / 1000);
    }
  }

  private static JsonObject body(RoutingContext ctx) {
    String text = ctx.body() == null ? null : ctx.body().asString();
    if (text == null || text.isBlank()) {
      return new JsonObject();
    }
    try {
      Object parsed = io.vertx.core.json.Json.decodeValue(text);
      if (parsed instanceof JsonObject o) {
        return o;
      }
      throw FailureCode.BAD_REQUEST.exception("the body must be a JSON object of the tool's arguments");
    } catch (DecodeException e) {
      throw FailureCode.BAD_REQUEST.exception("the body is not valid JSON: " + e.getMessage());
    }
  }

  static void json(RoutingContext ctx, int status, JsonObject body) {
    ctx.response().setStatusCode(status).putHeader("content-type", "application/json").end(body.encode());
  }
}
