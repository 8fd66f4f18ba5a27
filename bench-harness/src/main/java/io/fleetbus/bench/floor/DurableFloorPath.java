package io.fleetbus.bench.floor;

import io.fleetbus.bench.load.CallPath;
import io.fleetbus.bench.load.LatencyStats;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.json.JsonObject;
import java.util.Arrays;

/**
 * The durable floor (issue 38): the floor's request/reply with the same body, answered by {@link DurableReplier} only
 * once it has appended and committed one record. Keeps the replier's own insert + commit times of the calls since the
 * last {@link #resetCommits()}, to split the row into the commit and the rest. Called on one Vert.x context.
 */
public final class DurableFloorPath implements CallPath {
  private static final DeliveryOptions OPTIONS = new DeliveryOptions().setSendTimeout(10_000);

  private final Vertx vertx;
  private final String address;
  private final JsonObject payload = FloorPath.payload();
  private long[] commits = new long[1024];
  /** Per call: its round trip less its own commit, i.e. what the call spent outside the commit. */
  private long[] rest = new long[1024];
  private int count;

  /** @param address {@link DurableReplier#ADDRESS} or {@link DurableReplier#HOP_ADDRESS} */
  public DurableFloorPath(Vertx vertx, String address) {
    this.vertx = vertx;
    this.address = address;
  }

  @Override
  public Future<Void> call() {
    long t0 = System.nanoTime();
    return vertx.eventBus().<JsonObject>request(address, payload, OPTIONS).map(reply -> {
      long took = System.nanoTime() - t0;
      Long nanos = reply.body().getLong("commitNanos");
      if (nanos == null) {
        throw new IllegalStateException("durable floor: answer without commitNanos: " + reply.body());
      }
      if (count == commits.length) {
        commits = Arrays.copyOf(commits, count * 2);
        rest = Arrays.copyOf(rest, count * 2);
      }
      rest[count] = took - nanos;
      commits[count++] = nanos;
      return null;
    });
  }

  /** Forgets the commits so far (the warm-up's): runs on the load's context between warm-up and timed calls. */
  public Future<Void> resetCommits() {
    count = 0;
    return Future.succeededFuture();
  }

  /** The replier's insert + commit times since the last reset. */
  public LatencyStats commits() {
    return LatencyStats.of(Arrays.copyOf(commits, count), count);
  }

  /** Each call's round trip less its own commit, since the last reset: the durable call's part outside the commit. */
  public LatencyStats outsideCommit() {
    return LatencyStats.of(Arrays.copyOf(rest, count), count);
  }
}
