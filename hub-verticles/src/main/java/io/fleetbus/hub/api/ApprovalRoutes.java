package io.fleetbus.hub.api;

import io.fleetbus.hub.apidoc.ApiRoutes;
import io.fleetbus.hub.approval.ApprovalBus;
import io.fleetbus.hub.approval.ApprovalService;
import io.fleetbus.hub.approval.Decision;
import io.fleetbus.hub.authz.Access;
import io.fleetbus.hub.authz.Caller;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.Set;

/** The human step over REST: list approvals, approve or deny one ({@link ApprovalService}). */
final class ApprovalRoutes {
  private static final Set<String> STATUSES = Set.of("pending", "approved", "denied", "expired", "cancelled");

  private final ApprovalService approvals;

  ApprovalRoutes(Vertx vertx) {
    this.approvals = ApprovalBus.client(vertx);
  }

  void mount(Router api) {
    ApiRoutes.bind(api, ApiRoutes.REST, "listApprovals").handler(this::list);
    ApiRoutes.bind(api, ApiRoutes.REST, "approve").handler(ctx -> decide(ctx, true));
    ApiRoutes.bind(api, ApiRoutes.REST, "deny").handler(ctx -> decide(ctx, false));
  }

  private void list(RoutingContext ctx) {
    String status = ctx.request().getParam("status");
    if (status != null && !STATUSES.contains(status)) {
      HttpErrors.send(ctx, FailureCode.BAD_REQUEST, "status must be one of " + STATUSES);
      return;
    }
    Caller caller = Caller.of(ctx);
    answer(ctx, approvals.list(status).map(all -> new JsonObject().put("approvals", Access.approvals(caller, all))));
  }

  private void decide(RoutingContext ctx, boolean approve) {
    Caller caller = Caller.of(ctx);
    String reason;
    try {
      reason = RequestBodies.decision(ctx).getString("reason");
    } catch (io.fleetbus.shared.bus.FleetException e) {
      HttpErrors.send(ctx, e.code(), e.getMessage());
      return;
    }
    answer(ctx, approvals.decide(new Decision(ctx.pathParam("id"), approve, caller.subject(), caller.roles(), reason,
      false)).map(Access::approval));
  }

  private static void answer(RoutingContext ctx, Future<JsonObject> reply) {
    reply.onSuccess(body -> CallRoutes.json(ctx, 200, body)).onFailure(err -> HttpErrors.fail(ctx, err));
  }
}
