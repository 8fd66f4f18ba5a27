package io.fleetbus.hub.health;

import io.fleetbus.hub.registry.RegistryVerticle;
import io.fleetbus.shared.bus.Addresses;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.healthchecks.Status;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.healthchecks.HealthCheckHandler;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.util.function.BooleanSupplier;
import java.util.function.Consumer;

/**
 * {@code GET /health}: the hub process answers (liveness, for a restart policy). {@code GET /ready}: it
 * may take traffic — cluster joined, SQLite open, every hub verticle deployed (503 until then).
 * Neither needs a token: they say nothing a caller could misuse.
 */
public final class HealthRoutes implements Consumer<Router> {
  private static final long CHECK_TIMEOUT_MS = 2000;

  private final Vertx vertx;
  private final HazelcastClusterManager cluster;
  private final BooleanSupplier hubDeployed;

  public HealthRoutes(Vertx vertx, HazelcastClusterManager cluster, BooleanSupplier hubDeployed) {
    this.vertx = vertx;
    this.cluster = cluster;
    this.hubDeployed = hubDeployed;
  }

  @Override
  public void accept(Router root) {
    HealthCheckHandler liveness = HealthCheckHandler.create(vertx)
      .register("event-loop", Promise::complete);
    HealthCheckHandler readiness = HealthCheckHandler.create(vertx)
      .register("cluster", CHECK_TIMEOUT_MS, this::clusterJoined)
      .register("sqlite", CHECK_TIMEOUT_MS, this::sqliteOpen)
      .register("verticles", CHECK_TIMEOUT_MS, p -> p.complete(hubDeployed.getAsBoolean() ? Status.OK()
        : Status.KO(new JsonObject().put("reason", "the hub is still deploying its verticles"))));
    root.get("/health").handler(liveness);
    root.get("/ready").handler(readiness);
  }

  private void clusterJoined(Promise<Status> p) {
    var hz = cluster.getHazelcastInstance();
    if (hz == null || !cluster.isActive() || !hz.getLifecycleService().isRunning()) {
      p.complete(Status.KO(new JsonObject().put("reason", "not a member of the cluster")));
      return;
    }
    p.complete(Status.OK(new JsonObject().put("cluster", hz.getConfig().getClusterName())
      .put("members", hz.getCluster().getMembers().size())));
  }

  private void sqliteOpen(Promise<Status> p) {
    vertx.eventBus().request(Addresses.HUB_REGISTRY, "",
        new DeliveryOptions().setLocalOnly(true).setSendTimeout(CHECK_TIMEOUT_MS).addHeader(RegistryVerticle.ACTION, "ping"))
      .onSuccess(ok -> p.complete(Status.OK()))
      .onFailure(err -> p.complete(Status.KO(new JsonObject().put("reason", "registry database: " + err.getMessage()))));
  }
}
