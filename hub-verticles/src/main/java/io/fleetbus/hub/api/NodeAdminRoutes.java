package io.fleetbus.hub.api;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.catalog.Tiers;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/** Node credentials, admins only: enrollment tokens, rekey, revoke. */
final class NodeAdminRoutes {
  private final Vertx vertx;

  NodeAdminRoutes(Vertx vertx) {
    this.vertx = vertx;
  }

  void mount(Router api) {
    api.post("/enrollments").handler(this::createToken);
    api.get("/cluster").handler(this::cluster);
    api.post("/nodes/:nodeId/rekey").handler(ctx -> act(ctx, "rekey", "rotating a node's credential", 200));
    api.delete("/nodes/:nodeId").handler(ctx -> act(ctx, "revoke", "revoking a node", 200));
  }

  /** The cluster's members with their role (hub of this fleet, a proven node's member, unknown) and the intruders. */
  private void cluster(RoutingContext ctx) {
    String lacks = Caller.of(ctx).lacks("seeing the cluster's members", Tiers.ADMIN);
    if (lacks != null) {
      HttpErrors.send(ctx, FailureCode.FORBIDDEN, lacks);
      return;
    }
    vertx.eventBus().<JsonObject>request(Addresses.HUB_CLUSTER, null, new DeliveryOptions().setLocalOnly(true))
      .map(Message::body)
      .onSuccess(view -> CallRoutes.json(ctx, 200, view))
      .onFailure(err -> HttpErrors.fail(ctx, err));
  }

  /** Body (optional): {@code {"nodeId": "web-1", "ttlMinutes": 30}}; the token is shown once, in this answer only. */
  private void createToken(RoutingContext ctx) {
    Caller caller = Caller.of(ctx);
    String lacks = caller.lacks("creating an enrollment token", Tiers.ADMIN);
    if (lacks != null) {
      HttpErrors.send(ctx, FailureCode.FORBIDDEN, lacks);
      return;
    }
    JsonObject body;
    try {
      body = RequestBodies.enrollment(ctx);
    } catch (io.fleetbus.shared.bus.FleetException e) {
      HttpErrors.send(ctx, e.code(), e.getMessage());
      return;
    }
    // the node needs the fleet's cluster name to reach a hub at all: it comes with the token
    var fleet = vertx.sharedData().getLocalMap(io.fleetbus.hub.cluster.FleetIdentity.LOCAL_MAP);
    ask(ctx, "create", body.put("by", caller.subject()), 201, reply -> reply.put("fleetId", fleet.get("fleetId"))
      .put("clusterName", fleet.get("clusterName")));
  }

  private void act(RoutingContext ctx, String action, String what, int status) {
    Caller caller = Caller.of(ctx);
    String lacks = caller.lacks(what, Tiers.ADMIN);
    if (lacks != null) {
      HttpErrors.send(ctx, FailureCode.FORBIDDEN, lacks);
      return;
    }
    ask(ctx, action, new JsonObject().put("nodeId", ctx.pathParam("nodeId")).put("by", caller.subject()), status);
  }

  private void ask(RoutingContext ctx, String action, JsonObject body, int status) {
    ask(ctx, action, body, status, reply -> reply);
  }

  private void ask(RoutingContext ctx, String action, JsonObject body, int status,
                   java.util.function.UnaryOperator<JsonObject> answer) {
    vertx.eventBus().<JsonObject>request(Addresses.HUB_ENROLLMENT, body,
        new DeliveryOptions().setLocalOnly(true).addHeader("action", action).setSendTimeout(30_000))
      .map(Message::body).map(answer)
      .onSuccess(reply -> CallRoutes.json(ctx, status, reply))
      .onFailure(err -> HttpErrors.fail(ctx, err));
  }
}
