package io.fleetbus.hub.api;

import io.fleetbus.hub.apidoc.ApiRoutes;
import io.fleetbus.hub.authz.Caller;
import io.fleetbus.hub.enrollment.EnrollmentBus;
import io.fleetbus.hub.enrollment.EnrollmentService;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.catalog.Tiers;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.util.function.BiFunction;

/** Node credentials, admins only: enrollment tokens, rekey, revoke. */
final class NodeAdminRoutes {
  private final Vertx vertx;
  private final EnrollmentService enrollment;

  NodeAdminRoutes(Vertx vertx) {
    this.vertx = vertx;
    this.enrollment = EnrollmentBus.client(vertx);
  }

  void mount(Router api) {
    ApiRoutes.bind(api, ApiRoutes.REST, "createEnrollment").handler(this::createToken);
    ApiRoutes.bind(api, ApiRoutes.REST, "cluster").handler(this::cluster);
    ApiRoutes.bind(api, ApiRoutes.REST, "rekeyNode")
      .handler(ctx -> act(ctx, "rotating a node's credential", enrollment::rekey));
    ApiRoutes.bind(api, ApiRoutes.REST, "revokeNode").handler(ctx -> act(ctx, "revoking a node", enrollment::revoke));
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
    answer(ctx, 201, enrollment.createToken(body.getString("nodeId"), body.getLong("ttlMinutes"), caller.subject())
      .compose(reply -> {
        reply.put("fleetId", fleet.get("fleetId")).put("clusterName", fleet.get("clusterName"));
        // where this hub has an edge endpoint: what a node outside the cluster network links to and pins
        if (fleet.get("edgeCertSha256") == null) {
          return Future.succeededFuture(reply);
        }
        Object own = fleet.get("edgeEndpoint");
        reply.put("edgeEndpoint", own).put("edgeCertSha256", fleet.get("edgeCertSha256"));
        return vertx.eventBus().<JsonArray>request(Addresses.HUB_EDGE_ENDPOINTS, null,
            new DeliveryOptions().setLocalOnly(true).setSendTimeout(5000))
          .map(all -> reply.put("edgeEndpoints", all.body()))
          .otherwise(err -> reply.put("edgeEndpoints", new JsonArray().add(own)));
      }));
  }

  /** An admin's action on one node ({@code enrollment::rekey}, {@code enrollment::revoke}) by its id and who asks. */
  private void act(RoutingContext ctx, String what, BiFunction<String, String, Future<JsonObject>> action) {
    Caller caller = Caller.of(ctx);
    String lacks = caller.lacks(what, Tiers.ADMIN);
    if (lacks != null) {
      HttpErrors.send(ctx, FailureCode.FORBIDDEN, lacks);
      return;
    }
    answer(ctx, 200, action.apply(ctx.pathParam("nodeId"), caller.subject()));
  }

  private static void answer(RoutingContext ctx, int status, Future<JsonObject> reply) {
    reply.onSuccess(body -> CallRoutes.json(ctx, status, body)).onFailure(err -> HttpErrors.fail(ctx, err));
  }
}
