package io.fleetbus.hub.metrics;

import io.fleetbus.hub.api.CallSubmitter;
import io.fleetbus.hub.api.Frontend;
import io.fleetbus.hub.apidoc.ApiRoutes;
import io.fleetbus.shared.fault.FaultSwitch;
import io.fleetbus.shared.fault.FaultSwitches;
import io.micrometer.core.instrument.Gauge;
import io.micrometer.core.instrument.config.MeterFilter;
import io.micrometer.prometheusmetrics.PrometheusConfig;
import io.micrometer.prometheusmetrics.PrometheusMeterRegistry;
import io.vertx.core.metrics.MetricsOptions;
import io.vertx.core.spi.VertxMetricsFactory;
import io.vertx.micrometer.Label;
import io.vertx.micrometer.Match;
import io.vertx.micrometer.MatchType;
import io.vertx.micrometer.MetricsDomain;
import io.vertx.micrometer.MicrometerMetricsOptions;
import io.vertx.micrometer.PrometheusScrapingHandler;
import io.vertx.core.Vertx;
import io.vertx.ext.web.Router;
import java.util.EnumSet;
import java.util.Locale;
import java.util.UUID;
import java.util.regex.Pattern;

/**
 * The hub's Prometheus registry and the Vert.x metrics (event bus, HTTP, JVM) that feed it. One registry
 * per hub, not the process-wide default, so two hubs in one JVM never mix their figures.
 */
public final class HubMetrics implements Frontend {
  private static final Pattern CHAR_CLASS = Pattern.compile("\\[[^\\]]*\\][+*?]?");
  private static final Pattern ANY = Pattern.compile("\\.[+*]");

  private final PrometheusMeterRegistry registry = new PrometheusMeterRegistry(PrometheusConfig.DEFAULT);

  public HubMetrics() {
    // before any meter exists: Vert.x names a route by its mounts joined with '>' and a regex route by its regex
    registry.config().meterFilter(MeterFilter.replaceTagValues(Label.HTTP_ROUTE.toString(), HubMetrics::readableRoute));
  }

  public PrometheusMeterRegistry registry() {
    return registry;
  }

  public VertxMetricsFactory factory() {
    return BusMeters.factory(registry);
  }

  /**
   * Labels stay bounded: per-node and per-call addresses collapse to one value each, HTTP is labelled
   * by route pattern (never the raw path; see {@link #readableRoute}).
   */
  public MetricsOptions options() {
    // Vert.x keeps backends by registry name, process-wide: a name of its own keeps this hub's registry its own
    MicrometerMetricsOptions options = new MicrometerMetricsOptions().setEnabled(true).setJvmMetricsEnabled(true)
      .setRegistryName("fleetbus-hub-" + UUID.randomUUID())
      .setLabels(EnumSet.of(Label.EB_ADDRESS, Label.EB_SIDE, Label.EB_FAILURE, Label.HTTP_METHOD, Label.HTTP_CODE,
        Label.HTTP_ROUTE));
    collapse(options, "fleet\\.node\\..+\\.call", "fleet.node.*.call");
    collapse(options, "fleet\\.node\\..+\\.control", "fleet.node.*.control");
    collapse(options, "fleet\\.call\\..+\\.stream", "fleet.call.*.stream");
    collapse(options, "__vertx\\..*", "__vertx.*");
    // any address another part of fleetbus names after an id (a job, a session) stays one series
    collapse(options, ".*[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-[0-9a-fA-F]{4}-.*", "(address with an id)");
    return options;
  }

  /**
   * A route label as the path it serves: {@code /api/v1/>/nodes/:nodeId} → {@code /api/v1/nodes/:nodeId}, a sub-router
   * that repeats its mount point once ({@code /eventbus/>/eventbus/>/info} → {@code /eventbus/info}), and a regex
   * route's pattern with each variable part as {@code *} (SockJS: {@code /eventbus/*}{@code /*}{@code /xhr}).
   */
  static String readableRoute(String route) {
    String path = "";
    for (String part : route.split(">")) {
      String p = plain(part);
      if (p.isEmpty()) {
        continue;
      }
      String base = path.endsWith("/") ? path.substring(0, path.length() - 1) : path;
      if (path.isEmpty() || p.equals(base) || p.startsWith(base + "/")) {
        path = p; // the first part, or a part that names its mount point again
      } else {
        path = base + (p.startsWith("/") ? p : "/" + p);
      }
    }
    return path.isEmpty() ? "(no route)" : path;
  }

  /** A path as written, or a regex's text with character classes and wildcards as {@code *}. */
  private static String plain(String part) {
    if (part.chars().noneMatch(c -> "\\[(+^$".indexOf(c) >= 0)) {
      return part;
    }
    String p = CHAR_CLASS.matcher(part).replaceAll("*");
    p = ANY.matcher(p).replaceAll("*");
    return p.replace("\\", "").replaceAll("[()^$?]", "");
  }

  /** A matching address becomes {@code alias}; others keep their (fixed) names. */
  private static void collapse(MicrometerMetricsOptions options, String regex, String alias) {
    options.addLabelMatch(new Match().setDomain(MetricsDomain.EVENT_BUS).setLabel(Label.EB_ADDRESS.toString())
      .setType(MatchType.REGEX).setValue(regex).setAlias(alias));
  }

  /**
   * One gauge per switch on, always 1: {@code fleetbus_fault_switch{name="noAuthz",kind="security"} 1}. A scrape that
   * sees any series of it sees a hub with a fix switched off.
   */
  public void show(FaultSwitches switches) {
    for (FaultSwitch s : switches.all()) {
      Gauge.builder("fleetbus.fault.switch", () -> 1).tag("name", s.shortName())
        .tag("kind", s.kind().name().toLowerCase(Locale.ROOT)).description(s.breaks()).register(registry);
    }
  }

  /** {@code GET /metrics}: the Prometheus text format, without a token (it holds no ids and no secrets). */
  @Override
  public void mount(Vertx vertx, Router root, CallSubmitter calls) {
    ApiRoutes.bind(root, "metrics").handler(PrometheusScrapingHandler.create(registry));
  }
}
