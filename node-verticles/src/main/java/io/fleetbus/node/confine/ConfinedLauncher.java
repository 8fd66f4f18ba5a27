package io.fleetbus.node.confine;

import io.fleetbus.shared.bus.FailureCode;
import java.io.IOException;
import java.nio.file.Path;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.ExecutorService;
import java.util.concurrent.Executors;
import java.util.concurrent.Future;

/**
 * One thread that restricted itself to a Landlock ruleset and then only starts processes: a child inherits the
 * domain of the thread that forked it, so everything started here stays inside the ruleset (the node's other
 * threads stay unrestricted). Start requests wait for the thread; a spawn costs what a plain one does plus a hand-off.
 */
final class ConfinedLauncher implements Spawner {
  private final ExecutorService thread;
  private final Future<?> restricted;

  ConfinedLauncher(String name, int abi, Map<Path, Long> rules) {
    this(name, () -> Landlock.restrictCurrentThread(abi, rules));
  }

  /** @param restrict what the thread does to itself before it starts anything (see Confinement#restriction) */
  ConfinedLauncher(String name, Runnable restrict) {
    thread = Executors.newSingleThreadExecutor(r -> {
      Thread t = new Thread(r, "fleetbus-launcher-" + name);
      t.setDaemon(true);
      return t;
    });
    restricted = thread.submit(restrict);
  }

  @Override
  public Process start(ProcessBuilder pb) throws IOException {
    try {
      restricted.get();
    } catch (ExecutionException e) {
      throw FailureCode.NO_ELIGIBLE_NODE.exception("this node cannot confine processes: " + e.getCause().getMessage());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while waiting for the launcher", e);
    }
    try {
      return thread.submit(pb::start).get();
    } catch (java.util.concurrent.RejectedExecutionException e) {
      throw new Retired(pb.command().get(0));
    } catch (ExecutionException e) {
      if (e.getCause() instanceof IOException io) {
        throw io;
      }
      throw new IOException(e.getCause());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted while starting " + pb.command().get(0), e);
    }
  }

  /** This launcher was retired (its ruleset is stale) between the start's lookup and its turn: nothing ran. */
  static final class Retired extends IOException {
    Retired(String program) {
      super("the launcher for '" + program + "' was retired while it was starting: nothing ran");
    }
  }

  void retire() {
    thread.shutdown();
  }
}
