package io.fleetbus.node.tools.power;

import io.fleetbus.node.settings.ToolSettings;
import io.fleetbus.node.tools.command.HostCommands;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.List;
import java.util.concurrent.Executors;
import java.util.concurrent.ScheduledExecutorService;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One pending reboot or shutdown at a time: it counts down on its own timer thread and then runs the
 * command from the node's config; cancel() stops it while it counts. Called from tool handlers on
 * worker threads, never from an event loop, so a plain lock guards the one pending action.
 */
public final class PowerSchedule {
  private static final Logger LOG = LoggerFactory.getLogger(PowerSchedule.class);

  private record Pending(String action, Instant runsAt, String by, ScheduledFuture<?> future) {
  }

  private final HostCommands host;
  private final ToolSettings.Power settings;
  private final ScheduledExecutorService timer = Executors.newSingleThreadScheduledExecutor(r -> {
    Thread t = new Thread(r, "fleetbus-power-countdown");
    t.setDaemon(true);
    return t;
  });
  private Pending pending;

  public PowerSchedule(HostCommands host, ToolSettings.Power settings) {
    this.host = host;
    this.settings = settings;
  }

  public synchronized JsonObject schedule(String action, String by, String reason) {
    if (pending != null) {
      throw FailureCode.CONFLICT.exception("a " + pending.action() + " is already counting down (runs at " + pending.runsAt()
        + ", asked by " + pending.by() + "); cancel_reboot first");
    }
    List<String> command = "reboot".equals(action) ? settings.rebootCommand() : settings.shutdownCommand();
    if (command.isEmpty()) {
      throw FailureCode.TOOL_FAILED.exception("this node has no " + action + " command configured (power." + action + "Command)");
    }
    int seconds = settings.countdownSeconds();
    Instant at = Instant.now().plusSeconds(seconds);
    ScheduledFuture<?> f = timer.schedule(() -> fire(action, command), seconds, TimeUnit.SECONDS);
    pending = new Pending(action, at, by, f);
    LOG.warn("machine {} scheduled [in: {} s, by: {}, reason: {}]", action, seconds, by, reason);
    return new JsonObject().put("scheduled", action).put("runsAt", at.toString()).put("countdownSeconds", seconds)
      .put("command", new JsonArray(command)).put("cancel", "call cancel_reboot within the countdown to stop it");
  }

  public synchronized JsonObject cancel(String by) {
    if (pending == null) {
      throw FailureCode.NOT_FOUND.exception("no reboot or shutdown is counting down on this node");
    }
    Pending p = pending;
    if (!p.future().cancel(false)) {
      throw FailureCode.CONFLICT.exception("the " + p.action() + " has already started; it cannot be cancelled");
    }
    pending = null;
    LOG.warn("machine {} cancelled [by: {}]", p.action(), by);
    return new JsonObject().put("cancelled", p.action()).put("wasDueAt", p.runsAt().toString());
  }

  private void fire(String action, List<String> command) {
    synchronized (this) {
      pending = null;
    }
    LOG.warn("countdown over: running the {} command {}", action, command);
    try {
      JsonObject r = host.run(command, null, 60_000);
      LOG.warn("{} command finished [exit: {}, stderr: {}]", action, r.getInteger("exitCode"), r.getString("stderr", "").strip());
    } catch (Exception e) {
      LOG.error("{} command could not run: {}", action, e.toString());
    }
  }
}
