package io.fleetbus.shared.edge;

import io.vertx.core.Handler;
import io.vertx.core.buffer.Buffer;

/**
 * When bytes last came from the other end of an edge link (issue 35): a node takes a link that answers nothing to a ping
 * for too long as cut. Any bytes count, so a large frame still arriving is no silence.
 */
public final class LastHeard {
  private volatile long at = System.nanoTime();

  /** {@code next}, each buffer noted before it. */
  Handler<Buffer> before(Handler<Buffer> next) {
    return bytes -> {
      at = System.nanoTime();
      next.handle(bytes);
    };
  }

  /** Whether any bytes came since {@code nanoTime} ({@link System#nanoTime()}). */
  public boolean since(long nanoTime) {
    return at - nanoTime >= 0;
  }
}
