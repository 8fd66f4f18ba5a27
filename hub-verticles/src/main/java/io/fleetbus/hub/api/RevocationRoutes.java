package io.fleetbus.hub.api;

import io.fleetbus.hub.apidoc.ApiRoutes;
import io.fleetbus.hub.auth.Revocation;
import io.fleetbus.hub.authz.Caller;
import io.fleetbus.hub.revocation.RevocationBus;
import io.fleetbus.hub.revocation.RevocationService;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.catalog.Tiers;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/** Revoked user tokens, admins only: {@code POST /api/v1/revocations} ({tokenId} or {subject}) and the list. */
final class RevocationRoutes {
  private final RevocationService revocations;

  RevocationRoutes(Vertx vertx) {
    this.revocations = RevocationBus.client(vertx);
  }

  void mount(Router api) {
    ApiRoutes.bind(api, ApiRoutes.REST, "revokeTokens").handler(this::revoke);
    ApiRoutes.bind(api, ApiRoutes.REST, "listRevocations").handler(this::list);
  }

  private void revoke(RoutingContext ctx) {
    Caller caller = Caller.of(ctx);
    if (refused(ctx, caller, "revoking tokens")) {
      return;
    }
    JsonObject body;
    try {
      body = RequestBodies.revocation(ctx);
    } catch (FleetException e) {
      HttpErrors.send(ctx, e.code(), e.getMessage());
      return;
    }
    boolean byId = body.containsKey("tokenId");
    revocations.revoke(byId ? Revocation.Kind.TOKEN : Revocation.Kind.SUBJECT,
        body.getString(byId ? "tokenId" : "subject"), caller.subject())
      .onSuccess(r -> CallRoutes.json(ctx, 201, r))
      .onFailure(err -> HttpErrors.fail(ctx, err));
  }

  private void list(RoutingContext ctx) {
    if (refused(ctx, Caller.of(ctx), "listing revoked tokens")) {
      return;
    }
    revocations.list().onSuccess(r -> CallRoutes.json(ctx, 200, r)).onFailure(err -> HttpErrors.fail(ctx, err));
  }

  private static boolean refused(RoutingContext ctx, Caller caller, String what) {
    String lacks = caller.lacks(what, Tiers.ADMIN);
    if (lacks != null) {
      HttpErrors.send(ctx, FailureCode.FORBIDDEN, lacks);
    }
    return lacks != null;
  }
}
