package io.fleetbus.hub.metrics;

import io.micrometer.core.instrument.Counter;
import io.micrometer.core.instrument.DistributionSummary;
import io.micrometer.core.instrument.MeterRegistry;
import io.micrometer.core.instrument.Tags;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.spi.VertxMetricsFactory;
import io.vertx.core.spi.metrics.EventBusMetrics;
import io.vertx.core.spi.metrics.VertxMetrics;
import io.vertx.micrometer.Label;
import io.vertx.micrometer.MetricsNaming;
import io.vertx.micrometer.MicrometerMetricsOptions;
import io.vertx.micrometer.backends.BackendRegistries;
import io.vertx.micrometer.impl.VertxMetricsImpl;
import io.vertx.micrometer.impl.meters.LongGauges;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.ConcurrentMap;
import java.util.concurrent.atomic.LongAdder;
import java.util.regex.Pattern;

/**
 * Vert.x's event-bus metrics with each address's meters looked up once (issue 37): Vert.x's own look their counters up
 * in the registry on every message (building the tags, hashing and comparing the meter's id), three to four times per
 * message, about ten messages per call. The series are the same ones (names, tags, descriptions, the label matches
 * that collapse per-node and per-call addresses: the registry applies them as each meter is first registered); handler
 * registrations, deliveries and reply failures stay Vert.x's (their meters are already kept per handler, or rare).
 * Addresses named after an id (a call's stream, a job) are never kept: they pay the lookup as before.
 */
final class BusMeters implements EventBusMetrics<Object> {
  /** Addresses kept at most: every fixed hub address and a node's own; beyond it the lookup as before. */
  static final int MAX_KEPT = 4096;
  private static final Pattern WITH_ID = Pattern.compile("^fleet\\.call\\..*|.*[0-9a-fA-F]{8}-[0-9a-fA-F]{4}-.*");

  private final EventBusMetrics<Object> vertx;
  private final MeterRegistry registry;
  private final MetricsNaming names;
  private final LongGauges gauges;
  private final ConcurrentMap<String, Side> local = new ConcurrentHashMap<>();
  private final ConcurrentMap<String, Side> remote = new ConcurrentHashMap<>();
  private final ConcurrentMap<String, DistributionSummary> written = new ConcurrentHashMap<>();
  private final ConcurrentMap<String, DistributionSummary> read = new ConcurrentHashMap<>();

  /**
   * One address's meters on one side (local or remote), each registered as Vert.x registers it when first used (a
   * benign race: the registry answers the same meter to both).
   */
  private final class Side {
    private final Tags tags;
    private Counter published;
    private Counter sent;
    private Counter received;
    private Counter delivered;
    private LongAdder pending;

    Side(String address, boolean isLocal) {
      tags = Tags.of(Label.EB_ADDRESS.toString(), address, Label.EB_SIDE.toString(), isLocal ? "local" : "remote");
    }

    Counter published() {
      Counter c = published;
      return c != null ? c : (published = counter(names.getEbPublished(), "Number of messages published (publish / subscribe)"));
    }

    Counter sent() {
      Counter c = sent;
      return c != null ? c : (sent = counter(names.getEbSent(), "Number of messages sent (point-to-point)"));
    }

    Counter received() {
      Counter c = received;
      return c != null ? c : (received = counter(names.getEbReceived(), "Number of messages received"));
    }

    Counter delivered() {
      Counter c = delivered;
      return c != null ? c : (delivered = counter(names.getEbDelivered(), "Number of messages delivered to handlers"));
    }

    LongAdder pending() {
      LongAdder p = pending;
      return p != null ? p : (pending = gauges.builder(names.getEbPending(), LongAdder::doubleValue)
        .description("Number of messages not processed yet").tags(tags).register(registry));
    }

    private Counter counter(String name, String description) {
      return Counter.builder(name).description(description).tags(tags).register(registry);
    }
  }

  @SuppressWarnings("unchecked")
  BusMeters(EventBusMetrics<?> vertx, MeterRegistry registry, MetricsNaming names, LongGauges gauges) {
    this.vertx = (EventBusMetrics<Object>) vertx;
    this.registry = registry;
    this.names = names;
    this.gauges = gauges;
  }

  /** The hub's metrics factory: Vert.x's Micrometer metrics, with these event-bus meters. */
  static VertxMetricsFactory factory(MeterRegistry registry) {
    return new VertxMetricsFactory() {
      @Override
      public VertxMetrics metrics(VertxOptions options) {
        MicrometerMetricsOptions o = options.getMetricsOptions() instanceof MicrometerMetricsOptions m ? m
          : new MicrometerMetricsOptions(options.getMetricsOptions().toJson());
        LongGauges gauges = new LongGauges(new ConcurrentHashMap<>());
        VertxMetricsImpl metrics = new VertxMetricsImpl(o, BackendRegistries.setupBackend(o, registry), gauges) {
          @Override
          public EventBusMetrics<?> createEventBusMetrics() {
            EventBusMetrics<?> own = super.createEventBusMetrics();
            return own == null ? null : new BusMeters(own, registry,
              o.getMetricsNaming().withBaseName(io.vertx.micrometer.MetricsDomain.EVENT_BUS.getPrefix()), gauges);
          }
        };
        metrics.init();
        return metrics;
      }
    };
  }

  private static boolean internal(String address) {
    return address.startsWith("__vertx.");
  }

  private Side side(String address, boolean isLocal) {
    ConcurrentMap<String, Side> kept = isLocal ? local : remote;
    Side s = kept.get(address);
    if (s != null) {
      return s;
    }
    s = new Side(address, isLocal);
    if (kept.size() < MAX_KEPT && !WITH_ID.matcher(address).matches()) {
      Side first = kept.putIfAbsent(address, s);
      return first != null ? first : s;
    }
    return s;
  }

  /** An address's bytes written to or read from other members (one summary each way, as Vert.x registers it). */
  private DistributionSummary bytes(ConcurrentMap<String, DistributionSummary> kept, String name, String description,
                                    String address) {
    DistributionSummary b = kept.get(address);
    if (b != null) {
      return b;
    }
    b = DistributionSummary.builder(name).description(description).tags(Tags.of(Label.EB_ADDRESS.toString(), address))
      .register(registry);
    if (kept.size() < MAX_KEPT && !WITH_ID.matcher(address).matches()) {
      kept.putIfAbsent(address, b);
    }
    return b;
  }

  @Override
  public void messageSent(String address, boolean publish, boolean local, boolean remote) {
    if (!internal(address)) {
      Side s = side(address, local);
      (publish ? s.published() : s.sent()).increment();
    }
  }

  @Override
  public void messageReceived(String address, boolean publish, boolean local, int handlers) {
    if (!internal(address)) {
      Side s = side(address, local);
      s.received().increment();
      if (handlers > 0) {
        s.pending().add(handlers);
        s.delivered().increment();
      }
    }
  }

  @Override
  public void messageWritten(String address, int numberOfBytes) {
    if (!internal(address)) {
      bytes(written, names.getEbBytesWritten(), "Number of bytes sent while sending messages to event bus cluster peers",
        address).record(numberOfBytes);
    }
  }

  @Override
  public void messageRead(String address, int numberOfBytes) {
    if (!internal(address)) {
      bytes(read, names.getEbBytesRead(), "Number of bytes received while reading messages from event bus cluster peers",
        address).record(numberOfBytes);
    }
  }

  @Override
  public Object handlerRegistered(String address) {
    return vertx.handlerRegistered(address);
  }

  @Override
  public void handlerUnregistered(Object handler) {
    vertx.handlerUnregistered(handler);
  }

  @Override
  public void messageDelivered(Object handler, boolean local) {
    vertx.messageDelivered(handler, local);
  }

  @Override
  public void discardMessage(Object handler, boolean local, io.vertx.core.eventbus.Message<?> msg) {
    vertx.discardMessage(handler, local, msg);
  }

  @Override
  public void replyFailure(String address, ReplyFailure failure) {
    vertx.replyFailure(address, failure);
  }

  @Override
  public void close() {
    vertx.close();
  }
}
