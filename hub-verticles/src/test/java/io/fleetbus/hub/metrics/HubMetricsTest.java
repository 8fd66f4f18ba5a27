package io.fleetbus.hub.metrics;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.fault.FaultSwitch;
import io.fleetbus.shared.fault.FaultSwitches;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxOptions;
import io.vertx.core.http.HttpServer;
import io.vertx.ext.web.Router;
import java.net.URI;
import java.net.http.HttpClient;
import java.net.http.HttpRequest;
import java.net.http.HttpResponse;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
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

  /** Each switch on is one series at 1; a hub without switches has none. */
  @Test
  void everyFaultSwitchOnIsAGauge() {
    metrics.show(FaultSwitches.of(FaultSwitch.NO_AUTHZ, FaultSwitch.ONLINE_AT_HELLO));
    String scrape = metrics.registry().scrape();
    assertTrue(scrape.contains("fleetbus_fault_switch{kind=\"security\",name=\"noAuthz\"} 1.0"), scrape);
    assertTrue(scrape.contains("fleetbus_fault_switch{kind=\"fault\",name=\"onlineAtHello\"} 1.0"), scrape);
    HubMetrics plain = new HubMetrics();
    plain.show(FaultSwitches.none());
    assertFalse(plain.registry().scrape().contains("fleetbus_fault_switch"));
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
    assertFalse(scrape.contains("node-secret-name"), "no node id in a label: " + scrape.lines().filter(l -> l.contains("node-secret-name")).toList());
    assertFalse(scrape.contains(callId), "no call id in a label");
    assertFalse(scrape.contains("__vertx.reply."), "reply addresses are not one series each");
  }

  /**
   * The hub's event-bus meters (looked up once per address: {@link BusMeters}) are Vert.x's own series: the same
   * traffic on a Vert.x with the stock Micrometer factory scrapes to the same {@code vertx_eventbus_} lines.
   */
  @Test
  void theBusSeriesAreVertxsOwn() throws Exception {
    HubMetrics stock = new HubMetrics();
    Vertx plain = Vertx.builder().with(new VertxOptions().setMetricsOptions(stock.options()))
      .withMetrics(new io.vertx.micrometer.MicrometerMetricsFactory(stock.registry())).build();
    try {
      List<String> own = busLines(traffic(plain), stock);
      for (String series : List.of("published_total", "sent_total", "received_total", "delivered_total", "pending",
        "processed_total", "reply_failures_total")) {
        assertTrue(own.stream().anyMatch(l -> l.startsWith("vertx_eventbus_" + series + "{")), series + ": " + own);
      }
      assertEquals(own, busLines(traffic(vertx), metrics));
    } finally {
      plain.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    }
  }

  /** Requests, sends, publishes to fixed, per-node and per-call addresses, a reply failure; twice each. */
  private static Vertx traffic(Vertx v) throws Exception {
    String[] addresses = {Addresses.HUB_APPROVE, Addresses.nodeCall("n1"), Addresses.callStream("c-" + 1), "fleet.x"};
    for (String a : addresses) {
      v.eventBus().consumer(a, msg -> msg.reply("ok")).completion().toCompletionStage().toCompletableFuture()
        .get(5, TimeUnit.SECONDS);
    }
    for (int i = 0; i < 2; i++) {
      for (String a : addresses) {
        v.eventBus().request(a, "ping").toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
        v.eventBus().publish(a, "pub");
        v.eventBus().send(a, "send");
      }
      v.eventBus().request("fleet.nobody", "ping").otherwiseEmpty().toCompletionStage().toCompletableFuture()
        .get(5, TimeUnit.SECONDS);
    }
    v.eventBus().request(Addresses.HUB_APPROVE, "last").toCompletionStage().toCompletableFuture().get(5, TimeUnit.SECONDS);
    return v;
  }

  private static List<String> busLines(Vertx v, HubMetrics m) {
    return m.registry().scrape().lines().filter(l -> l.startsWith("vertx_eventbus_") && !l.contains("_max{")).sorted()
      .toList();
  }

  @Test
  void routeLabelsReadAsPathsWithoutRegexText() {
    Map<String, String> seen = Map.of(
      "/api/v1/>/nodes/:nodeId", "/api/v1/nodes/:nodeId",
      "/api/v1/>/api/v1/", "/api/v1/",
      "/eventbus/>/eventbus/>/info", "/eventbus/info",
      "/eventbus/>/eventbus/>\\/[^\\/\\.]+\\/([^\\/\\.]+)\\/xhr", "/eventbus/*/*/xhr",
      "/eventbus/>/eventbus/>\\/[^\\/\\.]+\\/([^\\/\\.]+)\\/websocket", "/eventbus/*/*/websocket",
      "/mcp>/mcp", "/mcp",
      "/>/ui/", "/ui/",
      "/health", "/health",
      "", "(no route)");
    seen.forEach((raw, readable) -> assertEquals(readable, HubMetrics.readableRoute(raw), raw));
  }

  @Test
  void aRealRouterIsLabelledByReadablePaths() throws Exception {
    Router root = Router.router(vertx);
    Router api = Router.router(vertx);
    api.get("/nodes/:nodeId").handler(ctx -> ctx.end("node"));
    api.routeWithRegex("\\/[^\\/]+\\/([^\\/]+)\\/xhr").handler(ctx -> ctx.end("xhr"));
    root.route("/api/v1/*").subRouter(api);
    HttpServer server = vertx.createHttpServer().requestHandler(root).listen(0, "127.0.0.1").toCompletionStage()
      .toCompletableFuture().get(5, TimeUnit.SECONDS);
    HttpClient http = HttpClient.newHttpClient();
    for (String path : List.of("/api/v1/nodes/n-secret", "/api/v1/abc/def/xhr")) {
      HttpResponse<String> resp = http.send(HttpRequest.newBuilder(URI.create("http://127.0.0.1:" + server.actualPort()
        + path)).build(), HttpResponse.BodyHandlers.ofString());
      assertEquals(200, resp.statusCode(), path);
    }
    String scrape = metrics.registry().scrape();
    assertTrue(scrape.contains("route=\"/api/v1/nodes/:nodeId\""), scrape);
    assertTrue(scrape.contains("route=\"/api/v1/*/*/xhr\""), scrape);
    Matcher labels = Pattern.compile("route=\"([^\"]*)\"").matcher(scrape);
    while (labels.find()) {
      assertFalse(labels.group(1).matches(".*[\\\\\\[\\]()+>^$].*"), "regex text in a route label: " + labels.group(1));
    }
    assertFalse(scrape.contains("n-secret"), "no raw path in a label");
  }
}
