package io.fleetbus.shared.bus;

import io.vertx.core.eventbus.Message;

/** Answers on the bus in the shape DESIGN.md gives failures: the {@link FailureCode} and the failure's message. */
public final class FleetReplies {
  private FleetReplies() {
  }

  /** Fails {@code msg} with the code {@code err} stands for (see {@link FailureCode#of(Throwable)}) and its message. */
  public static void fail(Message<?> msg, Throwable err) {
    msg.fail(FailureCode.of(err).code, err.getMessage());
  }
}
