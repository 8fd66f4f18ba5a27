package io.fleetbus.node.processes;

import io.fleetbus.shared.bus.FailureCode;
import java.util.Locale;

/** How the node looks after a managed process. */
public enum LaunchMode {
  /** Not looked after: started and stopped only by hand. */
  OFF,
  /** Kept running around the clock: a crash is followed by a relaunch. */
  ALWAYS,
  /** Running inside the weekly schedule's time ranges, stopped outside them. */
  SCHEDULED;

  public String json() {
    return name().toLowerCase(Locale.ROOT);
  }

  public static LaunchMode parse(String text) {
    try {
      return valueOf(text.toUpperCase(Locale.ROOT));
    } catch (IllegalArgumentException | NullPointerException e) {
      throw FailureCode.BAD_REQUEST.exception("launch mode '" + text + "' must be off, always or scheduled");
    }
  }
}
