package io.fleetbus.shared.bus;

import java.lang.annotation.ElementType;
import java.lang.annotation.Retention;
import java.lang.annotation.RetentionPolicy;
import java.lang.annotation.Target;

/**
 * How one operation of a service bound with {@link LocalServices#bind} is asked: its address, if not the service's
 * prefix and the method's name ({@code heartbeatInterval} at {@code <prefix>.heartbeat-interval}), and how long the
 * client waits for the answer, if not its default.
 */
@Retention(RetentionPolicy.RUNTIME)
@Target(ElementType.METHOD)
public @interface Ask {
  /** The operation's whole address; empty: the service's prefix, a dot, and the method's name in kebab case. */
  String address() default "";

  /** How long the client waits for the answer; 0: the client's default (30 s unless the client was given another). */
  long timeoutMs() default 0;

  /**
   * The argument (by index) whose own wait is added to {@link #timeoutMs()}: a number of ms, or a {@link TimeBound}
   * such as a ToolCall, so the client gives up only after the operation itself would have; -1: none.
   */
  int plusWaitOf() default -1;
}
