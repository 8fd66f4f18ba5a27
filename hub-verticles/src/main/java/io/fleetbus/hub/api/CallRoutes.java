package io.fleetbus.hub.api;

import io.fleetbus.hub.apidoc.ApiRoutes;
import io.fleetbus.hub.authz.Access;
import io.fleetbus.hub.authz.Caller;
import io.vertx.core.Future;
import io.fleetbus.hub.routing.Selector;
import io.fleetbus.shared.bus.CallStages;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/** Tool calls over REST: authenticate (done before), check role and schema, hand the call to approval. */
final class CallRoutes {
  private static final long MAX_WAIT_MS = 600_000;
  /** Routing-context key: when the request reached the API (only while call stages are measured). */
  static final String RECEIVED_AT = "fleetbus.receivedAt";

  private final CallSubmitter calls;

  CallRoutes(CallSubmitter calls) {
    this.calls = calls;
  }

  void mount(Router api) {
    ApiRoutes.bind(api, ApiRoutes.REST, "callNodeTool").handler(ctx -> call(ctx, () -> calls.prepare(Caller.of(ctx),
      ctx.pathParam("tool"), body(ctx), ctx.pathParam("nodeId"), idempotencyKey(ctx), false)));
    ApiRoutes.bind(api, ApiRoutes.REST, "callHubTool").handler(ctx -> call(ctx, () -> calls.prepare(Caller.of(ctx),
      ctx.pathParam("tool"), body(ctx), null, null, idempotencyKey(ctx), false)));
    ApiRoutes.bind(api, ApiRoutes.REST, "callByTarget").handler(ctx -> call(ctx, () -> byTarget(ctx)));
    ApiRoutes.bind(api, ApiRoutes.REST, "getCall").handler(this::getCall);
    ApiRoutes.bind(api, ApiRoutes.REST, "cancelCall").handler(this::cancel);
  }

  /**
   * {@code {tool, args, node}} or {@code {tool, args, labels, platform, minCapabilityTier, mode, maxConcurrency,
   * maxErrors}}: by labels the least-loaded eligible node runs it, or every eligible node with {@code mode: all}.
   */
  private static final java.util.List<String> TARGET_FIELDS = java.util.List.of("tool", "args", "node");

  private ToolCall byTarget(RoutingContext ctx) {
    JsonObject body = body(ctx);
    // everything wrong with the target at once, each naming its field
    java.util.List<String> problems = new java.util.ArrayList<>();
    if (!(body.getValue("tool") instanceof String)) {
      problems.add(body.getValue("tool") == null ? "missing required field 'tool' (and 'node' or a selector such as 'labels')"
        : "field 'tool' must be a tool's name");
    }
    if (!(body.getValue("args", new JsonObject()) instanceof JsonObject)) {
      problems.add("field 'args' must be a JSON object of the tool's arguments");
    }
    if (body.getValue("node") != null && !(body.getValue("node") instanceof String)) {
      problems.add("field 'node' must be a node id");
    }
    java.util.List<String> unknown = body.fieldNames().stream()
      .filter(f -> !TARGET_FIELDS.contains(f) && !Selector.FIELDS.contains(f)).sorted().toList();
    if (!unknown.isEmpty()) {
      java.util.List<String> takes = new java.util.ArrayList<>(TARGET_FIELDS);
      takes.addAll(Selector.FIELDS);
      problems.add("unknown field" + (unknown.size() == 1 ? " '" : "s '") + String.join("', '", unknown)
        + "' (a call by target takes " + takes.stream().sorted().toList() + ")");
    }
    if (!problems.isEmpty()) {
      throw FailureCode.BAD_REQUEST.exception("invalid call: " + String.join("; ", problems));
    }
    String node = body.getString("node");
    JsonObject selector = null;
    if (node == null) {
      JsonObject sel = body.copy();
      sel.remove("tool");
      sel.remove("args");
      sel.remove("node");
      selector = Selector.fromJson(sel).toJson();
    }
    return calls.prepare(Caller.of(ctx), body.getString("tool"), body.getJsonObject("args", new JsonObject()), node,
      selector, idempotencyKey(ctx), false);
  }

  private static String idempotencyKey(RoutingContext ctx) {
    return ctx.request().getHeader("Idempotency-Key");
  }

  private void call(RoutingContext ctx, java.util.function.Supplier<ToolCall> prepare) {
    ToolCall call;
    long waitMs;
    long authedAt = CallStages.ON ? System.nanoTime() : 0;
    try {
      call = prepare.get();
      waitMs = waitParam(ctx);
      if (CallStages.ON) {
        CallStages.begin(call.callId(), ctx.<Long>get(RECEIVED_AT, authedAt), authedAt);
      }
    } catch (FleetException e) {
      // a refused call is audited before the refusal is answered
      calls.refused(Caller.of(ctx), ctx.pathParam("tool"), ctx.pathParam("nodeId"), e)
        .onComplete(v -> HttpErrors.send(ctx, e.code(), e.getMessage()));
      return;
    }
    calls.submit(call)
      .onSuccess(result -> {
        CallStages.mark(call.callId(), CallStages.Stage.RECORDED);
        if (!call.callId().equals(result.callId())) {
          // an Idempotency-Key retry: the answer is the first call's
          ctx.response().putHeader("Idempotent-Replayed", "true");
        }
        if (ToolResult.PENDING.equals(result.status())) {
          if (waitMs > 0) {
            awaitCall(ctx, result.callId(), waitMs);
          } else {
            json(ctx, 202, result.toJson().put("approvalId", result.data().getString("approvalId")));
          }
        } else {
          json(ctx, 200, result.toJson());
          CallStages.end(call.callId());
        }
      })
      .onFailure(err -> HttpErrors.fail(ctx, err));
  }

  private void cancel(RoutingContext ctx) {
    calls.cancel(Caller.of(ctx), ctx.pathParam("callId"))
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
    Caller caller = Caller.of(ctx);
    // nobody waits on a call they may not see
    Future<JsonObject> visible = waitMs == 0 ? Future.succeededFuture()
      : calls.awaitCall(callId, 0).map(rec -> Access.callRecord(caller, rec));
    visible.compose(v -> calls.awaitCall(callId, waitMs))
      .map(rec -> Access.callRecord(caller, rec))
      .onSuccess(rec -> {
        JsonObject error = rec.getJsonObject("error");
        int status = switch (rec.getString("status")) {
          case ToolResult.OK, ToolResult.CANCELLED -> 200;
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
    return RequestBodies.json(ctx);
  }

  static void json(RoutingContext ctx, int status, JsonObject body) {
    ctx.response().setStatusCode(status).putHeader("content-type", "application/json").end(body.encode());
  }
}
