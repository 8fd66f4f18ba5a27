package io.fleetbus.hub.health;

import io.fleetbus.hub.api.CallSubmitter;
import io.fleetbus.hub.api.Frontend;
import io.fleetbus.hub.apidoc.ApiRoutes;
import io.fleetbus.hub.audit.AuditGate;
import io.fleetbus.hub.registry.RegistryBus;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.healthchecks.Status;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.healthchecks.HealthCheckHandler;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;

/**
 * {@code GET /health}: the hub process answers (liveness, for a restart policy). {@code GET /ready}: it
 * may take traffic — cluster joined, SQLite open, the audit writable, every hub verticle deployed (503 until then).
 * {@code /ready} also lists the fault switches the hub runs with (check {@code faultSwitches}, always UP), and its
 * {@code cluster} check names the hubs this hub lost without a goodbye, since when, and whether this side holds the
 * majority, half or a minority of the hubs it knew (a split: still UP — docs/reliability.md, "Split brain").
 * Neither needs a token: they say nothing a caller could misuse.
 */
public final class HealthRoutes implements Frontend {
  private static final long CHECK_TIMEOUT_MS = 2000;

  private final HubReadiness readiness;
  private Vertx vertx;

  public HealthRoutes(HubReadiness readiness) {
    this.readiness = readiness;
  }

  @Override
  public void mount(Vertx vertx, Router root, CallSubmitter calls) {
    this.vertx = vertx;
    HealthCheckHandler liveness = HealthCheckHandler.create(vertx)
      .register("event-loop", Promise::complete);
    HealthCheckHandler ready = HealthCheckHandler.create(vertx)
      .register("cluster", CHECK_TIMEOUT_MS, this::clusterJoined)
      .register("sqlite", CHECK_TIMEOUT_MS, this::sqliteOpen)
      // fail closed (issue 34): no call is taken while the audit cannot be written
      .register("audit", this::auditWritable)
      .register("verticles", CHECK_TIMEOUT_MS, p -> p.complete(readiness.deployed().getAsBoolean() ? Status.OK()
        : Status.KO(new JsonObject().put("reason", "the hub is still deploying its verticles"))))
      // loud, not a reason to be unready: every fault switch on, with what it breaks (docs/fault-switches.md)
      .register("faultSwitches", p -> p.complete(Status.OK(readiness.switches().toJson())));
    ApiRoutes.bind(root, "health").handler(liveness);
    ApiRoutes.bind(root, "ready").handler(ready);
  }

  private void clusterJoined(Promise<Status> p) {
    HazelcastClusterManager cluster = readiness.cluster();
    var hz = cluster == null ? null : cluster.getHazelcastInstance();
    if (hz == null || !cluster.isActive() || !hz.getLifecycleService().isRunning()) {
      p.complete(Status.KO(new JsonObject().put("reason", "not a member of the cluster")));
      return;
    }
    JsonObject data = new JsonObject().put("cluster", hz.getConfig().getClusterName())
      .put("fleetId", vertx.sharedData().getLocalMap(io.fleetbus.hub.cluster.FleetIdentity.LOCAL_MAP).get("fleetId"))
      .put("members", hz.getCluster().getMembers().size());
    // a hub cut off from others (or that lost them) says so, and stays ready: docs/reliability.md, "Split brain"
    JsonObject split = readiness.split().get();
    p.complete(Status.OK(split == null ? data : data.mergeIn(split)));
  }

  private void auditWritable(Promise<Status> p) {
    String problem = AuditGate.problem(vertx);
    p.complete(problem == null ? Status.OK() : Status.KO(new JsonObject().put("reason", "audit unavailable: " + problem
      + "; calls are refused until it can be written again")));
  }

  private void sqliteOpen(Promise<Status> p) {
    RegistryBus.client(vertx, CHECK_TIMEOUT_MS).ping()
      .onSuccess(ok -> p.complete(Status.OK()))
      .onFailure(err -> p.complete(Status.KO(new JsonObject().put("reason", "registry database: " + err.getMessage()))));
  }
}
