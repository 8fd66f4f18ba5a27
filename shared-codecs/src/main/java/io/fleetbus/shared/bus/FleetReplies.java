package io.fleetbus.shared.bus;

import io.vertx.core.eventbus.Message;

/** Answers on the bus in the shape DESIGN.md gives failures: the {@link FailureCode} and the failure's message. */
public final class FleetReplies {
  /**
   * Reply header of a node's failure answer to a call: the reply is then an error {@code ToolResult} carrying the
   * node's proof (a plain bus failure carries none, so anyone could send one), which the hub turns back into the
   * failure it stands for once the proof checks out.
   */
  public static final String PROVEN_FAILURE = "fb-failure";

  private FleetReplies() {
  }

  /** Fails {@code msg} with the code {@code err} stands for (see {@link FailureCode#of(Throwable)}) and its message. */
  public static void fail(Message<?> msg, Throwable err) {
    msg.fail(FailureCode.of(err).code, err.getMessage());
  }
}
