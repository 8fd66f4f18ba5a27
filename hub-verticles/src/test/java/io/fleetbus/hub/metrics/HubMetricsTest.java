package io.fleetbus.hub.metrics;

import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.shared.bus.Addresses;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** Event-bus metrics name addresses, but per-node and per-call addresses collapse to one series each. */
@Timeout(30)
class HubMetricsTest {
  private final HubMetrics metrics = new HubMetrics();
  private Vertx vertx;

  @BeforeEach
  void start() {
    vertx = Vertx.builder().with(new VertxOptions().setMetricsOptions(metrics.options()))
      .withMetrics(metrics.factory()).build();
  }

  @AfterEach
  void stop() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void twoHubsInOneProcessKeepTheirOwnFigures() throws Exception {
    HubMetrics other = new HubMetrics();
    Vertx second = Vertx.builder().with(new VertxOptions().setMetricsOptions(other.options())).withMetrics(other.factory()).build();
    try {
      second.eventBus().consumer("fleet.hub.only-on-the-second", msg -> { }).completion().toCompletionStage()
        .toCompletableFuture().get(5, TimeUnit.SECONDS);
      vertx.eventBus().consumer("fleet.hub.only-on-the-first", msg -> { }).completion().toCompletionStage()
        .toCompletableFuture().get(5, TimeUnit.SECONDS);
      assertTrue(other.registry().scrape().contains("fleet.hub.only-on-the-second"));
      assertFalse(other.registry().scrape().contains("fleet.hub.only-on-the-first"), "the second hub's registry is its own");
      assertFalse(metrics.registry().scrape().contains("fleet.hub.only-on-the-second"));
    } finally {
      second.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  @Test
  void nodeAndCallIdsNeverBecomeLabelValues() throws Exception {
    String callId = UUID.randomUUID().toString();
    String[] addresses = {Addresses.nodeCall("node-secret-name"), Addresses.nodeControl("node-secret-name"),
      Addresses.callStream(callId), "fleet.job." + UUID.randomUUID() + ".log", Addresses.HUB_APPROVE};
    for (String address : addresses) {
      vertx.eventBus().consumer(address, msg -> msg.reply("ok")).completion().toCompletionStage().toCompletableFuture()
        .get(5, TimeUnit.SECONDS);
      Future<?> reply = vertx.eventBus().request(address, "ping");
      reply.toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
    }
    String scrape = metrics.registry().scrape();
    assertTrue(scrape.contains("vertx_eventbus_"), "event-bus metrics are on");
    assertTrue(scrape.contains("address=\"fleet.node.*.call\""), scrape);
    assertTrue(scrape.contains("address=\"fleet.node.*.control\""), scrape);
    assertTrue(scrape.contains("address=\"fleet.call.*.stream\""), scrape);
    assertTrue(scrape.contains("address=\"(address with an id)\""), scrape);
    assertTrue(scrape.contains("address=\"fleet.hub.approve\""), "fixed addresses keep their names");
    assertFalse(scrape.contains("node-secret-name"), "no node id in a label");
    assertFalse(scrape.contains(callId), "no call id in a label");
    assertFalse(scrape.contains("__vertx.reply."), "reply addresses are not one series each");
  }
}
