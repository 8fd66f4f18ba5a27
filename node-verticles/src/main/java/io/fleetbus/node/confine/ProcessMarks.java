package io.fleetbus.node.confine;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The mark a node process puts in the environment of every command it starts ({@link #VARIABLE}{@code =<token>}, a
 * random token per node process), which their children inherit: what carries it was started by that node process,
 * listed with the watchdog or not, in its group or not. The watchdog's own scan is in its bash script
 * ({@link ProcessTrees}); this is the restarted node's, for what its previous run left.
 */
final class ProcessMarks {
  private static final Logger LOG = LoggerFactory.getLogger(ProcessMarks.class);
  /** The environment variable that marks what a node process started (its value: that process's token). */
  static final String VARIABLE = "FLEETBUS_TREE";

  private ProcessMarks() {
  }

  /**
   * Kills every process that carries {@code token} (a previous run of this node: its watchdog died with it), with its
   * group unless that is this process's own; returns how many carried it. Processes whose environment this user cannot
   * read are passed over.
   */
  static int killMarked(String token, ProcessTrees.Posix libc, int signal) {
    byte[] entry = (VARIABLE + "=" + token + "\0").getBytes(StandardCharsets.US_ASCII);
    int ownGroup = libc.getpgid(0);
    int found = 0;
    try (var procs = Files.list(Path.of("/proc"))) {
      for (Path proc : (Iterable<Path>) procs::iterator) {
        String name = proc.getFileName().toString();
        if (!name.chars().allMatch(Character::isDigit)) {
          continue;
        }
        byte[] env;
        try {
          env = Files.readAllBytes(proc.resolve("environ"));
        } catch (IOException | RuntimeException e) {
          continue;
        }
        if (hasEntry(env, entry)) {
          int pid = Integer.parseInt(name);
          int group = libc.getpgid(pid);
          if (group > 1 && group != ownGroup) { // never this node's own group (it holds whoever started it)
            libc.kill(-group, signal);
          }
          libc.kill(pid, signal);
          found++;
          LOG.warn("killed a process the previous run of this node left running [pid: {}]", pid);
        }
      }
    } catch (IOException e) {
      LOG.warn("cannot look for what the previous run of this node left running [reason: {}]", e.getMessage());
    }
    return found;
  }

  /** Whether the NUL-separated environment {@code env} holds {@code entry} (NUL-terminated) as a whole entry. */
  static boolean hasEntry(byte[] env, byte[] entry) {
    outer:
    for (int i = 0; i + entry.length <= env.length; i++) {
      if (i > 0 && env[i - 1] != 0) {
        continue;
      }
      for (int j = 0; j < entry.length; j++) {
        if (env[i + j] != entry[j]) {
          continue outer;
        }
      }
      return true;
    }
    return false;
  }
}
