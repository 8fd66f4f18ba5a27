package io.fleetbus.node.confine;

import com.sun.jna.Library;
import com.sun.jna.Native;
import io.fleetbus.shared.fault.FaultSwitch;
import io.fleetbus.shared.fault.FaultSwitches;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.ConcurrentHashMap;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * No process a command tool starts outlives its command, its timeout or its node.
 * <ul>
 *   <li>Each command starts as the leader of a process group of its own ({@code setsid} in front of the program, which
 *       execs in place: the pid stays the command's), so the whole tree can be signalled at once, including children
 *       the program forked off into the background.</li>
 *   <li>When the command's leader ends, what is left of its group is killed: nothing runs on after the answer.</li>
 *   <li>A <em>watchdog</em> ({@link TreeWatchdog}: one small bash per node process, in a session of its own) is told
 *       every live group over a pipe; when the node process dies, even by SIGKILL, the pipe reaches end-of-file and the
 *       watchdog kills every group still listed. Nothing then runs on unreported: an interrupted call really did not
 *       finish.</li>
 *   <li>Every command also carries a mark in its environment ({@code FLEETBUS_TREE=<token of this node process>}),
 *       which its children inherit: at end-of-file the watchdog also kills every process with the mark. That covers a
 *       command the node had started but not yet listed when it died (the listing follows the spawn), and a child that
 *       left its group ({@code setsid}, a daemon's double fork).</li>
 *   <li>A ledger in the node's data folder ({@code process-trees}: pid and kernel start time of each live leader)
 *       lets a restarted node kill what the watchdog could not (it was killed too): a pid counts only while its start
 *       time matches, so a recycled pid is never hit; the ledger also keeps the previous run's mark, and what still
 *       carries it is killed too.</li>
 * </ul>
 * Jobs and managed processes are not tracked here: they outlive node restarts on purpose and are re-adopted.
 * {@link FaultSwitch#NO_TREE_KILL} ({@code -Dfleetbus.fault.noTreeKill=true}, tests only) starts commands as before: no
 * group, no watchdog, no ledger.
 */
public final class ProcessTrees {
  private static final Logger LOG = LoggerFactory.getLogger(ProcessTrees.class);
  private static final int SIGTERM = 15;
  private static final int SIGKILL = 9;
  interface Posix extends Library {
    int kill(int pid, int sig);

    int getpgid(int pid);
  }

  private static final Posix LIBC = load();
  private static volatile ProcessTrees jvm;

  private final Path setsid;
  /** This node process's mark value: random, so a restarted node never mistakes another run's processes for its own. */
  private final String token = randomToken();
  private final Map<Long, String> live = new ConcurrentHashMap<>();
  /** Null without setsid (nothing is tracked then). */
  private final TreeWatchdog watchdog;
  private OutputStream ledger;

  /**
   * Where a leader's end is handled. Not the JDK's process reaper: a reaper thread born of a confined launcher thread
   * (it starts the process, so the JDK makes the reaper from it) carries that launcher's Landlock domain, and its
   * signal scope refuses the group kill of any other launcher's command (its background child lived on). This thread
   * is made here, by whoever makes the trees (the node's start), outside every domain.
   */
  private final java.util.concurrent.ThreadPoolExecutor reaped = new java.util.concurrent.ThreadPoolExecutor(1, 1, 0,
    java.util.concurrent.TimeUnit.MILLISECONDS, new java.util.concurrent.LinkedBlockingQueue<>(), r -> {
      Thread t = new Thread(r, "process-tree-ends");
      t.setDaemon(true);
      return t;
    });

  private ProcessTrees(Path setsid) {
    this.setsid = setsid;
    this.watchdog = setsid == null ? null : TreeWatchdog.start(setsid, ProcessMarks.VARIABLE + "=" + token,
      LIBC.getpgid(0));
    reaped.prestartCoreThread();
  }

  private static String randomToken() {
    byte[] b = new byte[16];
    new java.security.SecureRandom().nextBytes(b);
    return java.util.HexFormat.of().formatHex(b);
  }

  /** This JVM's trees (one watchdog per node process). */
  public static ProcessTrees get() {
    ProcessTrees t = jvm;
    if (t == null) {
      synchronized (ProcessTrees.class) {
        if (jvm == null) {
          jvm = create(FaultSwitches.active());
        }
        t = jvm;
      }
    }
    return t;
  }

  /**
   * A second set of trees with a watchdog of its own (tests: its "node" can die without taking this JVM along), with
   * {@code switches} ({@link FaultSwitch#NO_TREE_KILL}: commands start untracked).
   */
  static ProcessTrees standalone(FaultSwitches switches) {
    return create(switches);
  }

  private static ProcessTrees create(FaultSwitches switches) {
    boolean off = switches.on(FaultSwitch.NO_TREE_KILL);
    Optional<Path> setsid = off || LIBC == null ? Optional.empty()
      : Stream.of("/usr/bin/setsid", "/bin/setsid").map(Path::of).filter(Files::isExecutable).findFirst();
    if (setsid.isEmpty()) {
      LOG.warn("commands run without a process group of their own: their children may outlive them [reason: {}]",
        LIBC == null ? "no libc" : off ? "fault switch -D" + FaultSwitch.NO_TREE_KILL.property() : "no setsid program");
    }
    return new ProcessTrees(setsid.orElse(null));
  }

  /** The real path of the setsid program put in front of commands, or empty (the confinement lets it execute). */
  public Optional<Path> prefix() {
    return Optional.ofNullable(setsid);
  }

  /** The program a started command line runs: past the setsid prefix. */
  public static List<String> programOf(List<String> argv) {
    ProcessTrees t = jvm;
    if (t != null && t.setsid != null && argv.size() > 1 && argv.get(0).equals(t.setsid.toString())) {
      return List.of(argv.get(1));
    }
    return List.of(argv.get(0));
  }

  /**
   * Keeps the ledger in {@code dataDir} from now on, first killing the trees a previous run of this node left alive
   * (its leaders' pid and start time still match). Returns how many were killed.
   */
  public synchronized int ledgerIn(Path dataDir) throws IOException {
    if (setsid == null) {
      return 0;
    }
    Path file = dataDir.resolve("process-trees");
    int killed = 0;
    if (Files.exists(file)) {
      Map<Long, String> left = new LinkedHashMap<>();
      String previousToken = null;
      for (String line : Files.readAllLines(file, StandardCharsets.UTF_8)) {
        String[] f = line.split(" ");
        if (f.length == 2 && f[0].equals("mark")) {
          previousToken = f[1];
        } else if (f.length >= 2 && f[0].equals("+") && f.length >= 3) {
          left.put(Long.parseLong(f[1]), f[2]);
        } else if (f.length >= 2 && f[0].equals("-")) {
          left.remove(Long.parseLong(f[1]));
        }
      }
      for (Map.Entry<Long, String> e : left.entrySet()) {
        long pid = e.getKey();
        if (e.getValue().equals(startTime(pid))) {
          LIBC.kill((int) -pid, SIGKILL);
          LIBC.kill((int) pid, SIGKILL);
          killed++;
          LOG.warn("killed a process tree the previous run of this node left running [pid: {}]", pid);
        }
      }
      if (previousToken != null && !previousToken.equals(token)) {
        killed += ProcessMarks.killMarked(previousToken, LIBC, SIGKILL);
      }
    }
    ledger = Files.newOutputStream(file, java.nio.file.StandardOpenOption.CREATE,
      java.nio.file.StandardOpenOption.TRUNCATE_EXISTING, java.nio.file.StandardOpenOption.WRITE);
    write(ledger, "mark " + token);
    for (Map.Entry<Long, String> e : live.entrySet()) {
      write(ledger, "+ " + e.getKey() + " " + e.getValue());
    }
    return killed;
  }

  /**
   * Starts commands through {@code inner}, each as the leader of its own group and with this node process's mark in its
   * environment, tracked until it ends.
   */
  public Spawner around(Spawner inner) {
    if (setsid == null) {
      return inner;
    }
    return pb -> {
      List<String> argv = new ArrayList<>(pb.command().size() + 1);
      argv.add(setsid.toString());
      argv.addAll(pb.command());
      pb.command(argv);
      mark(pb);
      Process p = inner.start(pb);
      track(p);
      return p;
    };
  }

  private void track(Process p) {
    long pid = p.pid();
    String started = startTime(pid);
    live.put(pid, started == null ? "?" : started);
    watchdog.listed(pid);
    synchronized (this) {
      write(ledger, "+ " + pid + " " + started);
    }
    p.onExit().thenRunAsync(() -> ended(pid), reaped);
  }

  /** Puts this node process's mark in what {@code pb} starts (and so in everything that inherits its environment). */
  void mark(ProcessBuilder pb) {
    pb.environment().put(ProcessMarks.VARIABLE, token);
  }

  /** The leader ended: whatever is left of its group is killed, then it is forgotten. */
  private void ended(long pid) {
    LIBC.kill((int) -pid, SIGKILL);
    live.remove(pid);
    watchdog.unlisted(pid);
    synchronized (this) {
      write(ledger, "- " + pid);
    }
  }

  /** True when {@code pid} leads a live tree started here. */
  public boolean leads(long pid) {
    return live.containsKey(pid);
  }

  /** SIGTERM (or SIGKILL with {@code force}) to every process of the tree {@code pid} leads, if it leads one. */
  public boolean signal(long pid, boolean force) {
    if (!live.containsKey(pid)) {
      return false;
    }
    return LIBC.kill((int) -pid, force ? SIGKILL : SIGTERM) == 0;
  }

  /** What the watchdog sees when this node process dies: its pipe closes (tests, on a {@link #standalone} set). */
  void pipeClosedForTest() throws IOException {
    if (watchdog != null) {
      watchdog.closePipe();
    }
  }

  String tokenForTest() {
    return token;
  }

  /** The pid of this node's watchdog, if it runs (tests). */
  public Optional<Long> watchdogPid() {
    return watchdog == null ? Optional.empty() : watchdog.pid();
  }

  /** Writes {@code line} to the ledger or the watchdog's pipe (none: nothing); a failure is logged, not thrown. */
  static void write(OutputStream out, String line) {
    if (out == null) {
      return;
    }
    try {
      out.write((line + "\n").getBytes(StandardCharsets.US_ASCII));
      out.flush();
    } catch (IOException e) {
      LOG.warn("process-tree record not written [line: {}, reason: {}]", line, e.getMessage());
    }
  }

  /** Field 22 of /proc/pid/stat (clock ticks since boot), or null when the process is gone. */
  static String startTime(long pid) {
    try {
      String stat = Files.readString(Path.of("/proc", Long.toString(pid), "stat"));
      String[] after = stat.substring(stat.lastIndexOf(')') + 2).split(" ");
      return after[19];
    } catch (IOException | RuntimeException e) {
      return null;
    }
  }

  private static Posix load() {
    try {
      return Native.load("c", Posix.class);
    } catch (Throwable e) {
      return null;
    }
  }
}
