package io.fleetbus.node.boot;

import ch.qos.logback.classic.Level;
import ch.qos.logback.classic.Logger;
import ch.qos.logback.classic.LoggerContext;
import ch.qos.logback.classic.turbo.TurboFilter;
import ch.qos.logback.core.spi.FilterReply;
import java.util.List;
import org.slf4j.LoggerFactory;
import org.slf4j.Marker;

/**
 * Drops what Hazelcast and Vert.x log when a node (a lite member) has no hub: each partition "completely lost" when
 * the last hub leaves, the old member's retries towards the dead hub, stack traces of {@code NoDataMemberInClusterException} from every map operation and every try
 * to join again, the CP-subsystem and partition-owner warnings of every join. The node says it itself, once per try
 * and with the reason ({@code NodeSupervisor}: "the last hub left", "cannot join a cluster with a hub yet"), so its
 * log shows one line per reconnect try. Hazelcast's own report of why the hub left (connection refused, member
 * suspected dead) and everything else passes; the hub does not install this.
 */
public final class HublessNoise extends TurboFilter {
  private static final String NO_DATA_MEMBER = "com.hazelcast.partition.NoDataMemberInClusterException";
  /** Warnings without an exception that only say "no data member here". */
  private static final List<String> HUBLESS_WARNINGS = List.of("is completely lost!",
    "No member group is available to assign partition ownership", "CP Subsystem is not enabled",
    // the member this node leaves after its last hub died, still retrying operations addressed to that hub
    "Not Member! target:", "Following unknown addresses are found in partition table");

  /** Installs the filter in logback (whatever its configuration file); a no-op under another SLF4J binding. */
  public static void install() {
    if (LoggerFactory.getILoggerFactory() instanceof LoggerContext context) {
      HublessNoise filter = new HublessNoise();
      filter.setName("hubless-noise");
      filter.start();
      context.addTurboFilter(filter);
    }
  }

  @Override
  public FilterReply decide(Marker marker, Logger logger, Level level, String format, Object[] params, Throwable t) {
    if (logger == null || level == null || !level.isGreaterOrEqual(Level.WARN)) {
      return FilterReply.NEUTRAL;
    }
    String name = logger.getName();
    if (!name.startsWith("com.hazelcast") && !name.startsWith("io.vertx")) {
      return FilterReply.NEUTRAL;
    }
    return isHubless(format, t) ? FilterReply.DENY : FilterReply.NEUTRAL;
  }

  static boolean isHubless(String message, Throwable t) {
    for (Throwable c = t; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (NO_DATA_MEMBER.equals(c.getClass().getName())) {
        return true;
      }
    }
    if (t == null && message != null) {
      for (String warning : HUBLESS_WARNINGS) {
        if (message.contains(warning)) {
          return true;
        }
      }
    }
    return false;
  }

  /** The reason a join failed, in words: "no hub" for the expected case, else the failure's own message. */
  static String reason(Throwable failure) {
    for (Throwable c = failure; c != null; c = c.getCause() == c ? null : c.getCause()) {
      if (NO_DATA_MEMBER.equals(c.getClass().getName())) {
        return "no hub in the cluster (every member there is a node)";
      }
    }
    Throwable root = failure;
    while (root.getCause() != null && root.getCause() != root) {
      root = root.getCause();
    }
    return root.getMessage() == null ? root.getClass().getSimpleName() : root.getMessage();
  }
}
