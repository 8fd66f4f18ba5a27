package io.fleetbus.node.confine;

import static io.fleetbus.node.confine.Landlock.EXECUTE;
import static io.fleetbus.node.confine.Landlock.MAKE_DIR;
import static io.fleetbus.node.confine.Landlock.MAKE_FIFO;
import static io.fleetbus.node.confine.Landlock.MAKE_REG;
import static io.fleetbus.node.confine.Landlock.MAKE_SOCK;
import static io.fleetbus.node.confine.Landlock.MAKE_SYM;
import static io.fleetbus.node.confine.Landlock.READ_DIR;
import static io.fleetbus.node.confine.Landlock.READ_FILE;
import static io.fleetbus.node.confine.Landlock.REFER;
import static io.fleetbus.node.confine.Landlock.REMOVE_DIR;
import static io.fleetbus.node.confine.Landlock.REMOVE_FILE;
import static io.fleetbus.node.confine.Landlock.TRUNCATE;
import static io.fleetbus.node.confine.Landlock.WRITE_FILE;

import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The Landlock rulesets of one {@link Confinement}: which paths the started programs may read, write and execute.
 * Landlock only adds rights, so an excluded folder inside the scope is covered around, never granted and taken back.
 */
final class LandlockRules {
  private static final Logger LOG = LoggerFactory.getLogger(LandlockRules.class);

  /** What any program needs to start and run at all: read only (the loader and the JDK's spawn helper execute). */
  static final List<String> STARTUP = List.of("/usr/lib", "/lib", "/lib64", "/usr/lib64", "/usr/lib/locale",
    "/usr/share/locale", "/usr/share/zoneinfo", "/usr/share/i18n", "/etc/ld.so.cache", "/etc/ld.so.conf",
    "/etc/ld.so.conf.d", "/etc/localtime", "/etc/nsswitch.conf", "/etc/passwd", "/etc/group", "/etc/locale.alias",
    "/etc/hosts", "/etc/resolv.conf", "/etc/host.conf", "/dev/urandom", "/dev/random");
  /** Devices programs write to as a matter of course. */
  static final List<String> STARTUP_WRITABLE = List.of("/dev/null", "/dev/zero");
  /** Executables every start needs: the dynamic loader, the JDK's spawn helper. */
  static final List<String> STARTUP_EXECUTABLE = List.of("/lib64/ld-linux-x86-64.so.2",
    System.getProperty("java.home") + "/lib/jspawnhelper");
  /** Folders a program runs its own parts from (git's subcommands live in its exec path). */
  static final Map<String, List<String>> COMPANIONS = Map.of("git", List.of("/usr/lib/git-core"));

  /** Listed by every spawn (see {@link #rules}). */
  static final Path SPAWN_LISTS = Path.of("/proc");

  static final long SCOPE_RIGHTS = READ_FILE | READ_DIR | WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_DIR | MAKE_REG
    | MAKE_SYM | MAKE_FIFO | MAKE_SOCK | REFER | TRUNCATE;

  /**
   * The system folders that are never hidden (see {@link MountHiding}) because programs read parts of them (the
   * start-up files, the system views): their names can be listed where a folder above them is, their contents only
   * where a view grants them.
   */
  static final Set<Path> SHOWN = io.fleetbus.node.grant.NodeGrant.SYSTEM_PATHS.stream().map(Path::of)
    .filter(s -> Stream.of(STARTUP, STARTUP_WRITABLE, SystemReads.READ, SystemReads.LIST).flatMap(List::stream)
      .map(Path::of).anyMatch(v -> v.startsWith(s)))
    .collect(java.util.stream.Collectors.toUnmodifiableSet());

  private final boolean strict;
  private final int abi;
  private final List<Path> allowed;
  private final Supplier<List<Path>> excludedNow;
  private final Supplier<List<Path>> watchedNow;
  /** Tests only: the scope walk as it was before links were handled (see ScopeCover#coverFollowingLinks). */
  private final boolean legacyCover;
  /** The state of the folders the latest ruleset was built from (holders walked, places searched for private ones). */
  private final Map<Path, String> stamps = new ConcurrentHashMap<>();
  private volatile Set<Path> lastHolders = Set.of();
  private final List<Path> searchPath;
  private final List<Path> readable;
  private final List<Path> writable;
  /** Whether excluded folders are hidden by a mount namespace per launcher (see {@link MountHiding}). */
  private final boolean hide;

  /**
   * @param strict   sudo nodes' strict mode: no execution inside the scope, only of the named executables
   * @param readable folders inside the excluded ones the started programs still read (the node's job scripts)
   */
  LandlockRules(boolean strict, int abi, List<Path> allowed, Supplier<List<Path>> excluded, Supplier<List<Path>> watched,
                List<Path> readable, boolean legacyCover) {
    this(strict, abi, allowed, excluded, watched, readable, List.of(), legacyCover, false);
  }

  /**
   * @param excluded    what the scope leaves out, asked again at each build (private folders may have appeared)
   * @param watched     folders whose change makes a built ruleset stale besides the ones the walk went through
   * @param managedLogs folders where managed processes' output files are (opened for appending when one starts,
   *                    created beforehand by the node): writable only in the managed processes' rulesets
   * @param hide        hide the excluded folders from run_command, run_script and jobs (MountHiding: root nodes)
   */
  LandlockRules(boolean strict, int abi, List<Path> allowed, Supplier<List<Path>> excluded, Supplier<List<Path>> watched,
                List<Path> readable, List<Path> managedLogs, boolean legacyCover, boolean hide) {
    this.legacyCover = legacyCover;
    this.hide = hide;
    this.strict = strict;
    this.abi = abi;
    this.allowed = real(allowed);
    this.readable = List.copyOf(readable);
    this.writable = List.copyOf(managedLogs);
    this.excludedNow = excluded;
    this.watchedNow = watched;
    String path = System.getenv("PATH");
    this.searchPath = Stream.of((path == null ? "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin" : path)
        .split(File.pathSeparator))
      .filter(s -> !s.isBlank()).map(Path::of).toList();
  }

  /**
   * A ruleset whose scope rules name handles on the inodes walked; close the handles once the launcher restricted
   * itself. {@code hidden}: the folders its launcher hides before it restricts itself (their holders were given rights
   * on that promise).
   */
  record Bound(Map<Path, Long> rules, PathHandles handles, List<Path> hidden) {
  }

  /** The same ruleset, with a state of its own (a confinement with a part of its grant switched off: tests). */
  LandlockRules fresh() {
    return new LandlockRules(strict, abi, allowed, excludedNow, watchedNow, readable, writable, legacyCover, hide);
  }

  /** The same ruleset with folder hiding on or off (tests: both constructions hold the corpus). */
  LandlockRules hiding(boolean on) {
    return new LandlockRules(strict, abi, allowed, excludedNow, watchedNow, readable, writable, legacyCover, on);
  }

  boolean hides() {
    return hide;
  }

  /** The ruleset as paths (what tests and logs see): scope, start-up needs, executables. */
  Map<Path, Long> rules(Set<Path> executables) {
    try (PathHandles h = new PathHandles(false)) {
      return rules(executables, h, false, false, new ArrayList<>());
    }
  }

  /** The ruleset for a launcher: scope rules bound to what the walk saw (no link can redirect one). */
  Bound bind(Set<Path> executables) {
    return bound(executables, false, false);
  }

  /**
   * The rules of managed processes on a sudo node, bound: {@link #bind} plus appending to the output files in the
   * managed logs folder (opened by the launcher thread when one starts; the node creates and rotates them).
   */
  Bound bindManaged(Set<Path> executables) {
    return bound(executables, false, true);
  }

  /** The rules of scope mode, bound: the file scope with execution inside it (managed processes of a root node). */
  Bound bindScope() {
    return bound(Set.of(), true, true);
  }

  private Bound bound(Set<Path> executables, boolean scopeMode, boolean managed) {
    PathHandles h = new PathHandles(!legacyCover);
    try {
      List<Path> hidden = new ArrayList<>();
      Map<Path, Long> rules = rules(executables, h, scopeMode, managed, hidden);
      return new Bound(rules, h, MountHiding.outermost(hidden));
    } catch (RuntimeException | Error e) {
      h.close();
      throw e;
    }
  }

  /** Whether a folder the latest ruleset was built from changed since (a new launcher is due). */
  boolean stale() {
    for (Map.Entry<Path, String> e : stamps.entrySet()) {
      if (!ScopeCover.stamp(e.getKey()).equals(e.getValue())) {
        return true;
      }
    }
    return false;
  }

  /** @param hidden filled with the folders the launcher must hide (none for managed processes: see below) */
  private Map<Path, Long> rules(Set<Path> executables, PathHandles handles, boolean scopeMode, boolean managed,
                                List<Path> hidden) {
    // the state is taken before anything is read: a change during the build makes the result stale at once
    Map<Path, String> seen = new java.util.HashMap<>();
    watchedNow.get().forEach(p -> seen.put(p, ScopeCover.stamp(p)));
    List<Path> excluded = real(excludedNow.get());
    // managed processes open their output files in the node's data folder from the launcher thread: not hidden there
    if (hide && !managed && !scopeMode && !legacyCover) {
      hidden.addAll(hideable(excluded));
    }
    ScopeCover scope = new ScopeCover(excluded, hidden, handles, seen);
    Map<Path, Long> rules = new LinkedHashMap<>();
    long scopeRights = (strict ? SCOPE_RIGHTS : Landlock.handled(abi)) | (scopeMode ? SCOPE_RIGHTS | EXECUTE : 0);
    for (Path root : allowed) {
      if (legacyCover) {
        scope.coverFollowingLinks(root, scopeRights, rules);
      } else {
        scope.cover(root, scopeRights, rules);
      }
    }
    stamps.clear();
    stamps.putAll(seen);
    if (!scope.holders().equals(lastHolders)) {
      lastHolders = scope.holders();
      LOG.info("folders of the confinement scope that hold excluded ones: started processes can neither list them nor"
        + " create entries directly in them (their other entries are granted) [folders: {}]", lastHolders);
    }
    STARTUP.forEach(p -> rules.merge(Path.of(p), READ_FILE | READ_DIR, (a, b) -> a | b));
    readable.forEach(p -> rules.merge(p, READ_FILE | READ_DIR, (a, b) -> a | b));
    STARTUP_WRITABLE.forEach(p -> rules.merge(Path.of(p), READ_FILE | WRITE_FILE, (a, b) -> a | b));
    // the JDK's child lists /proc/self/fd to close what it must not pass on; when it cannot, it closes every possible
    // descriptor instead (~5 ms a start at a 20,000 limit). Listing only: no file under /proc is read through this.
    rules.merge(SPAWN_LISTS, READ_DIR, (a, b) -> a | b);
    STARTUP_EXECUTABLE.forEach(p -> rules.merge(Path.of(p), READ_FILE | EXECUTE, (a, b) -> a | b));
    // commands start behind setsid (a process group of their own: see ProcessTrees); it execs the program in place
    ProcessTrees.get().prefix().ifPresent(p -> rules.merge(p, READ_FILE | EXECUTE, (a, b) -> a | b));
    // the grant's own additions: read-only system views everyday programs need, the limits' prlimit (SystemReads)
    SystemReads.addTo(rules, strict, excluded);
    for (Path exe : executables) {
      rules.merge(exe, READ_FILE | EXECUTE, (a, b) -> a | b);
      List<String> parts = COMPANIONS.get(exe.getFileName().toString());
      if (parts != null) {
        parts.forEach(p -> rules.merge(Path.of(p), READ_FILE | READ_DIR | EXECUTE, (a, b) -> a | b));
      }
    }
    if (managed) {
      writable.forEach(p -> rules.merge(p, WRITE_FILE, (a, b) -> a | b));
    }
    return rules;
  }

  /**
   * The excluded folders a launcher can hide: folders (a file stays covered around), none of the system folders
   * programs read parts of ({@link #SHOWN}), none that holds a folder the started programs still read (the managed
   * logs are written by managed processes only, whose launchers hide nothing).
   */
  private List<Path> hideable(List<Path> excluded) {
    return excluded.stream()
      .filter(e -> !SHOWN.contains(e) && Files.isDirectory(e, java.nio.file.LinkOption.NOFOLLOW_LINKS))
      .filter(e -> readable.stream().noneMatch(p -> p.startsWith(e)))
      .toList();
  }

  /** The real file {@code program} names (a path, or a name looked up on PATH), when executable. */
  java.util.Optional<Path> resolve(String program) {
    if (program.contains("/")) {
      Path p = Path.of(program);
      return Files.isExecutable(p) ? java.util.Optional.of(realOrSelf(p)) : java.util.Optional.empty();
    }
    for (Path dir : searchPath) {
      Path p = dir.resolve(program);
      if (Files.isRegularFile(p) && Files.isExecutable(p)) {
        return java.util.Optional.of(realOrSelf(p));
      }
    }
    return java.util.Optional.empty();
  }

  private static List<Path> real(List<Path> paths) {
    return paths.stream().map(p -> realOrSelf(p.toAbsolutePath().normalize())).distinct().toList();
  }

  private static Path realOrSelf(Path p) {
    try {
      return p.toRealPath();
    } catch (IOException e) {
      return p;
    }
  }
}
