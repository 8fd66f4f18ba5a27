package io.fleetbus.hub.edge;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The edge endpoint's handshake threads run at a low CPU priority (Linux nice {@value #NICE}, set once per thread with
 * {@code renice} on its thread id; issue 35): a handshake runs when a core is free of the proven links' calls, so a
 * flood of connecting clients slows other connecting clients, not the calls. Where that cannot be set (not Linux, no
 * {@code renice}) handshakes run at the normal priority, still on their own thread(s). Worker threads only (it waits for
 * a process).
 */
final class HandshakePriority {
  private static final Logger LOG = LoggerFactory.getLogger(HandshakePriority.class);
  /**
   * Linux nice 10: a tenth of a normal thread's share when they compete, so calls come first, yet handshakes are not
   * starved on a machine busy with other work (19 left a hub's first handshake over a second on a loaded machine).
   */
  static final int NICE = 10;
  private static final ThreadLocal<Boolean> LOWERED = ThreadLocal.withInitial(() -> false);

  private HandshakePriority() {
  }

  /** Lowers the calling thread's priority the first time it is called on that thread. */
  static void lowerOnce() {
    if (LOWERED.get()) {
      return;
    }
    LOWERED.set(true);
    try {
      // "<pid>/task/<tid>": the kernel's id of this thread, which renice takes
      String tid = Files.readSymbolicLink(Path.of("/proc/thread-self")).getFileName().toString();
      Process renice = new ProcessBuilder("renice", "-n", String.valueOf(NICE), "-p", tid).redirectErrorStream(true)
        .redirectOutput(ProcessBuilder.Redirect.DISCARD).start();
      if (!renice.waitFor(5, TimeUnit.SECONDS) || renice.exitValue() != 0) {
        renice.destroy();
        LOG.info("edge handshakes at normal CPU priority [thread: {}, reason: renice did not succeed]",
          Thread.currentThread().getName());
      }
    } catch (IOException | UnsupportedOperationException e) {
      LOG.info("edge handshakes at normal CPU priority [thread: {}, reason: {}]", Thread.currentThread().getName(),
        e.toString());
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
  }
}
