package io.fleetbus.hub.api;

import io.fleetbus.hub.apidoc.ApiRoutes;
import io.fleetbus.hub.authz.Caller;
import io.fleetbus.shared.bus.CallStages;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.catalog.Tiers;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;

/**
 * {@code GET /api/v1/debug/stages}: where this hub's HTTP tool calls spent their time, stage by stage (p50/p99 ms),
 * when the hub runs with {@code -Dfleetbus.stages=true} (the benchmark does); {@code DELETE} forgets the samples.
 * Admins only: timings are about the hub, not about anyone's calls.
 */
final class StageRoutes {
  private StageRoutes() {
  }

  static void mount(Router api) {
    ApiRoutes.bind(api, ApiRoutes.REST, "callStages").handler(ctx -> {
      if (admin(ctx)) {
        CallRoutes.json(ctx, 200, CallStages.snapshot());
      }
    });
    ApiRoutes.bind(api, ApiRoutes.REST, "resetCallStages").handler(ctx -> {
      if (admin(ctx)) {
        CallStages.reset();
        ctx.response().setStatusCode(204).end();
      }
    });
  }

  private static boolean admin(RoutingContext ctx) {
    if (Caller.of(ctx).roles().contains(Tiers.ADMIN)) {
      return true;
    }
    HttpErrors.send(ctx, FailureCode.FORBIDDEN, "call-stage timings need the role 'admin'");
    return false;
  }
}
