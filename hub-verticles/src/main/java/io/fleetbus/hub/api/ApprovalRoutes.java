package io.fleetbus.hub.api;

import io.fleetbus.hub.authz.Access;
import java.util.function.UnaryOperator;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.Set;

/** The human step: list approvals, approve or deny one. */
final class ApprovalRoutes {
  private static final Set<String> STATUSES = Set.of("pending", "approved", "denied", "expired", "cancelled");

  private final Vertx vertx;

  ApprovalRoutes(Vertx vertx) {
    this.vertx = vertx;
  }

  void mount(Router api) {
    api.get("/approvals").handler(this::list);
    api.post("/approvals/:id/approve").handler(ctx -> decide(ctx, "approve"));
    api.post("/approvals/:id/deny").handler(ctx -> decide(ctx, "deny"));
  }

  private void list(RoutingContext ctx) {
    String status = ctx.request().getParam("status");
    if (status != null && !STATUSES.contains(status)) {
      HttpErrors.send(ctx, FailureCode.BAD_REQUEST, "status must be one of " + STATUSES);
      return;
    }
    Caller caller = Caller.of(ctx);
    ask(ctx, "list", new JsonObject().put("status", status),
      reply -> reply.put("approvals", Access.approvals(caller, reply.getJsonArray("approvals", new JsonArray()))));
  }

  private void decide(RoutingContext ctx, String decision) {
    Caller caller = Caller.of(ctx);
    String reason;
    try {
      reason = RequestBodies.decision(ctx).getString("reason");
    } catch (io.fleetbus.shared.bus.FleetException e) {
      HttpErrors.send(ctx, e.code(), e.getMessage());
      return;
    }
    ask(ctx, "decide", new JsonObject().put("approvalId", ctx.pathParam("id")).put("decision", decision)
      .put("decider", caller.subject()).put("roles", new JsonArray(caller.roles())).put("reason", reason), Access::approval);
  }

  private void ask(RoutingContext ctx, String action, JsonObject body, UnaryOperator<JsonObject> view) {
    vertx.eventBus().<JsonObject>request(Addresses.HUB_APPROVALS, body,
        new DeliveryOptions().setLocalOnly(true).addHeader("action", action))
      .map(Message::body)
      .onSuccess(reply -> CallRoutes.json(ctx, 200, view.apply(reply)))
      .onFailure(err -> HttpErrors.fail(ctx, err));
  }
}
