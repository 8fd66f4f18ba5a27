package io.fleetbus.bench.load;

import io.vertx.core.Future;

/**
 * One way of making a call that the benchmark times: the raw event bus, the HTTP API, a WebSocket,
 * ssh… A new path is one class implementing this; {@link LoadRunner} does warm-up, timing and concurrency.
 */
public interface CallPath {

  /** Makes one call; the future fails if the answer is not the expected one. Called on one Vert.x context. */
  Future<Void> call();
}
