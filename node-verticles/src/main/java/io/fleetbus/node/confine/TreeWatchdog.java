package io.fleetbus.node.confine;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Optional;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The watchdog of one node process's {@link ProcessTrees}: a small bash in a session of its own, told every live group
 * over a pipe. When the node process dies, even by SIGKILL, the pipe reaches end-of-file and the watchdog kills every
 * group still listed, then every process that carries the node process's mark (started but not listed yet, or gone from
 * its group). Without bash, or when it cannot start, there is none: the ledger at the node's next start is what is
 * left.
 */
final class TreeWatchdog {
  private static final Logger LOG = LoggerFactory.getLogger(TreeWatchdog.class);
  /** $1: this node process's mark (see ProcessMarks); $2: its own group, never killed whole (it holds its parent). */
  private static final String SCRIPT = """
    trap '' INT TERM HUP QUIT
    mark=$1
    nodegroup=$2
    declare -A live
    while read -r op pg; do
      case "$op" in
        +) live[$pg]=1 ;;
        -) unset "live[$pg]" ;;
      esac
    done
    for pg in "${!live[@]}"; do kill -KILL -- "-$pg" 2>/dev/null; done
    # then whatever carries the mark: started but not listed yet, or gone from its group; twice, for a fork in between
    for pass in 1 2; do
      for env in /proc/[0-9]*/environ; do
        found=
        while IFS= read -r -d '' v; do
          if [[ $v == "$mark" ]]; then found=1; break; fi
        done 2>/dev/null < "$env"
        [[ -n $found ]] || continue
        p=${env#/proc/}; p=${p%/environ}
        read -r stat 2>/dev/null < "/proc/$p/stat" || continue
        set -- ${stat##*') '}
        if [[ $3 -gt 1 && $3 != $$ && $3 != "$nodegroup" ]]; then kill -KILL -- "-$3" 2>/dev/null; fi
        kill -KILL "$p" 2>/dev/null
      done
    done
    """;

  /** Null when none runs. */
  private final Process process;
  private final OutputStream pipe;

  private TreeWatchdog(Process process) {
    this.process = process;
    this.pipe = process == null ? null : process.getOutputStream();
  }

  /**
   * Starts the watchdog through {@code setsid} (a session of its own: a signal to the node's group misses it).
   *
   * @param mark      what the node's commands carry in their environment ({@code FLEETBUS_TREE=<token>})
   * @param nodeGroup the node process's own group: never killed whole
   */
  static TreeWatchdog start(Path setsid, String mark, int nodeGroup) {
    Optional<Path> bash = Stream.of("/bin/bash", "/usr/bin/bash").map(Path::of).filter(Files::isExecutable).findFirst();
    if (bash.isEmpty()) {
      LOG.warn("no bash for the process-tree watchdog: commands running when this node dies are killed only at its"
        + " next start");
      return new TreeWatchdog(null);
    }
    try {
      return new TreeWatchdog(new ProcessBuilder(setsid.toString(), bash.get().toString(), "-c", SCRIPT, "watchdog",
        mark, Integer.toString(nodeGroup)).redirectOutput(ProcessBuilder.Redirect.DISCARD)
        .redirectError(ProcessBuilder.Redirect.DISCARD).start());
    } catch (IOException e) {
      LOG.warn("cannot start the process-tree watchdog: commands running when this node dies are killed only at its"
        + " next start [reason: {}]", e.getMessage());
      return new TreeWatchdog(null);
    }
  }

  /** The group {@code leader} leads is live: killed if the node process dies before it ends. */
  synchronized void listed(long leader) {
    ProcessTrees.write(pipe, "+ " + leader);
  }

  /** The group {@code leader} led is gone (its rest killed by the node). */
  synchronized void unlisted(long leader) {
    ProcessTrees.write(pipe, "- " + leader);
  }

  /** What the watchdog sees when the node process dies: end-of-file on its pipe. */
  synchronized void closePipe() throws IOException {
    if (pipe != null) {
      pipe.close();
    }
  }

  /** Its pid, while it runs. */
  Optional<Long> pid() {
    return process == null || !process.isAlive() ? Optional.empty() : Optional.of(process.pid());
  }
}
