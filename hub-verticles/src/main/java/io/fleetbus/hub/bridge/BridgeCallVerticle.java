package io.fleetbus.hub.bridge;

import io.fleetbus.hub.api.CallSubmitter;
import io.fleetbus.hub.authz.Caller;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.bus.FleetReplies;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import java.util.List;

/**
 * The one address bridge clients may send to: {@code {node, tool, args}} with the caller that
 * {@link BridgeGuard} verified. A hub-local consumer, so no other cluster member can reach it.
 */
public final class BridgeCallVerticle extends VerticleBase {
  private final ToolCatalog catalog;
  private final long callTimeoutMs;
  private CallSubmitter calls;

  public BridgeCallVerticle(ToolCatalog catalog, long callTimeoutMs) {
    this.catalog = catalog;
    this.callTimeoutMs = callTimeoutMs;
  }

  @Override
  public Future<?> start() {
    calls = new CallSubmitter(vertx, catalog, callTimeoutMs);
    return vertx.eventBus().<Object>localConsumer(Addresses.BRIDGE_CALL, this::onCall).completion();
  }

  private void onCall(Message<Object> msg) {
    ToolCall call;
    try {
      Caller caller = caller(msg);
      if (!(msg.body() instanceof JsonObject body)) {
        throw FailureCode.BAD_REQUEST.exception("the body must be {\"node\": …, \"tool\": …, \"args\": {…}}");
      }
      if (body.containsKey("labels")) {
        throw FailureCode.BAD_REQUEST.exception("targeting by labels is not available yet: give \"node\" with a node id");
      }
      call = calls.prepare(caller, body.getString("tool"), body.getJsonObject("args", new JsonObject()),
        body.getString("node"), null, false);
    } catch (FleetException e) {
      JsonObject body = msg.body() instanceof JsonObject b ? b : new JsonObject();
      Caller who = callerOrNull(msg);
      calls.refused(who, body.getValue("tool") instanceof String t ? t : null,
        body.getValue("node") instanceof String n ? n : null, e).onComplete(v -> msg.fail(e.code().code, e.getMessage()));
      return;
    } catch (ClassCastException e) {
      msg.fail(FailureCode.BAD_REQUEST.code, "node and tool must be strings, args an object");
      return;
    }
    calls.submit(call).onComplete(ar -> {
      if (ar.failed()) {
        FleetReplies.fail(msg, ar.cause());
        return;
      }
      ToolResult r = ar.result();
      JsonObject json = r.toJson();
      if (ToolResult.PENDING.equals(r.status())) {
        json.put("approvalId", r.data().getString("approvalId"));
      }
      msg.reply(json);
    });
  }

  /** The verified caller, or null (then nothing is audited: an unauthenticated frame is no one's call). */
  private static Caller callerOrNull(Message<Object> msg) {
    return msg.headers().get(BridgeGuard.CALLER_HEADER) == null ? null : caller(msg);
  }

  @SuppressWarnings("unchecked")
  private static Caller caller(Message<Object> msg) {
    String verified = msg.headers().get(BridgeGuard.CALLER_HEADER);
    if (verified == null) {
      String why = msg.headers().get(BridgeGuard.AUTH_ERROR_HEADER);
      throw FailureCode.UNAUTHORIZED.exception(why != null ? why + " (put the JWT in the message header 'authorization')"
        : "no verified caller: send through the event-bus bridge with an 'authorization' header");
    }
    JsonObject c = new JsonObject(verified);
    return new Caller(c.getString("sub"), (List<String>) (List<?>) c.getJsonArray("roles").getList());
  }
}
