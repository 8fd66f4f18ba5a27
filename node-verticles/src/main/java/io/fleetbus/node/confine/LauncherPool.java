package io.fleetbus.node.confine;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import java.util.function.LongSupplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The launcher threads of one {@link Confinement}: one per distinct ruleset (the executables it lets run; managed
 * processes' launchers apart, their rules append to output files), made at the first start that needs it. Every
 * ruleset is bound ({@link LandlockRules#bind}: its scope rules name handles on the inodes walked), and the handles
 * are let go once the launcher thread restricted itself. Launchers are retired when the allowlist changes, when a
 * folder the ruleset was built from changed, or when the grant learnt of a new private folder.
 */
final class LauncherPool {
  private static final Logger LOG = LoggerFactory.getLogger(LauncherPool.class);
  /** The key of the one scope-mode launcher (managed processes of a root node) among the strict ones. */
  private static final Path SCOPE_KEY = Path.of("/", "scope-mode");
  /** The mark of the strict launchers of managed processes (their rules add the output files). */
  private static final Path MANAGED_KEY = Path.of("/", "managed-mode");

  private final LandlockRules ruleset;
  private final BiFunction<String, LandlockRules.Bound, Runnable> restriction;
  private final Map<Set<Path>, ConfinedLauncher> launchers = new ConcurrentHashMap<>();
  private Set<String> lastPrograms;
  /** After a rebuild for a changed folder, the next one waits this long (see retireIfStale). */
  static final long MIN_STALE_REBUILD_NANOS = 1_000_000_000L;
  private long lastStaleRebuild = System.nanoTime() - MIN_STALE_REBUILD_NANOS;
  /** The private folders' generation of the file grant (PrivateFolders#generation): a new one rebuilds the launchers. */
  private final LongSupplier generation;
  private volatile long builtForGeneration;

  /**
   * @param restriction what a launcher thread named so does to itself with these rules (Confinement#restriction)
   * @param generation  how many private folders the file grant knows of (0 without one)
   */
  LauncherPool(LandlockRules ruleset, BiFunction<String, LandlockRules.Bound, Runnable> restriction, LongSupplier generation) {
    this.ruleset = ruleset;
    this.restriction = restriction;
    this.generation = generation;
  }

  /**
   * The launcher that lets {@code programs} (names looked up on PATH) and what the start executes run.
   *
   * @param managed a launcher for managed processes: their rules let them append to their output files
   */
  ConfinedLauncher launcher(Set<String> programs, List<String> starting, boolean managed) {
    Set<Path> executables = new TreeSet<>();
    // scope mode too: a root node whose scope holds no programs still runs its allowlisted ones
    for (String name : programs) {
      ruleset.resolve(name).ifPresent(executables::add);
    }
    starting.forEach(p -> ruleset.resolve(p).ifPresent(executables::add));
    retireIfStale();
    retireIfChanged(programs);
    Set<Path> key = new TreeSet<>(executables);
    if (managed) {
      key.add(MANAGED_KEY);
    }
    return launchers.computeIfAbsent(key, k -> {
      builtForGeneration = generation.getAsLong();
      LandlockRules.Bound b = managed ? ruleset.bindManaged(executables) : ruleset.bind(executables);
      LOG.info("launcher ready [rules: {}, executables: {}, managed: {}]", b.rules().size(), executables, managed);
      return bound(Integer.toString(launchers.size()), b);
    });
  }

  /** The scope-mode launcher, made at its first start (its rules name the managed logs folder, there by then). */
  ConfinedLauncher scope() {
    retireIfStale();
    return launchers.computeIfAbsent(Set.of(SCOPE_KEY), k -> {
      builtForGeneration = generation.getAsLong();
      return bound("scope", ruleset.bindScope());
    });
  }

  /**
   * A launcher for {@code bound}: its thread restricts itself, then lets go of the handles the rules name (the kernel
   * holds the inodes from then on; a start waits for the restriction, so no start precedes the release). The thread
   * hides the ruleset's hidden folders first (MountHiding), while it may still mount.
   */
  private ConfinedLauncher bound(String name, LandlockRules.Bound bound) {
    Runnable restrict = restriction.apply(name, bound);
    return new ConfinedLauncher(name, () -> {
      try {
        restrict.run();
      } finally {
        bound.handles().close();
      }
    });
  }

  /**
   * When a folder the rulesets were built from changed (an entry added, removed or renamed where the scope holds an
   * excluded folder; a private folder appeared beside the node's), every launcher is retired and the next start makes
   * new ones: no right outlives the entry it was given for.
   */
  private synchronized void retireIfStale() {
    if (launchers.isEmpty()) {
      return;
    }
    // a private folder newly known (the file tools met its marker) is left out at once
    boolean newPrivate = generation.getAsLong() != builtForGeneration;
    // a folder that changes all the time (a busy /tmp holding a private folder) would rebuild at every start: after one
    // rebuild, the next waits a while. Only freshness waits: a right is bound to the inode the walk saw, and no confined
    // process can remove or rename entries in the folders walked (where folders are hidden it may add some: they get the
    // holder's rights until the rebuild gives them their own)
    boolean changed = !newPrivate && System.nanoTime() - lastStaleRebuild >= MIN_STALE_REBUILD_NANOS && ruleset.stale();
    if (newPrivate || changed) {
      lastStaleRebuild = System.nanoTime();
      launchers.values().forEach(ConfinedLauncher::retire);
      launchers.clear();
      lastPrograms = null;
      LOG.info("the folders the confinement scope was built from changed{}: launchers rebuilt",
        newPrivate ? " (a fleetbus private folder was found)" : "");
    }
  }

  /**
   * A changed allowlist (config_update) retires the launchers made for the old one: their threads end, and what they
   * started runs on to its own end (a child does not die with the thread that started it).
   */
  private synchronized void retireIfChanged(Set<String> programs) {
    if (programs.equals(lastPrograms)) {
      return;
    }
    if (lastPrograms != null) {
      launchers.entrySet().removeIf(e -> {
        if (e.getKey().contains(SCOPE_KEY)) {
          return false;
        }
        e.getValue().retire();
        return true;
      });
      LOG.info("allowlist changed: launchers of the old one retired [programs: {}]", new TreeSet<>(programs));
    }
    lastPrograms = Set.copyOf(programs);
  }

  /**
   * Starts {@code pb} on the launcher for {@code programs}: a launcher retired between its lookup and the start (a
   * folder its ruleset was built from changed, a private folder was found, the allowlist changed) is looked up again,
   * so the start runs under the current ruleset and the caller never sees the rebuild.
   */
  java.lang.Process start(Set<String> programs, List<String> starting, boolean managed, ProcessBuilder pb)
    throws java.io.IOException {
    return startOn(() -> launcher(programs, starting, managed), pb);
  }

  java.lang.Process startScoped(ProcessBuilder pb) throws java.io.IOException {
    return startOn(this::scope, pb);
  }

  static java.lang.Process startOn(java.util.function.Supplier<ConfinedLauncher> launcher, ProcessBuilder pb)
    throws java.io.IOException {
    for (int attempt = 1; ; attempt++) {
      try {
        return launcher.get().start(pb);
      } catch (ConfinedLauncher.Retired e) {
        if (attempt == 3) {
          throw io.fleetbus.shared.bus.FailureCode.NO_ELIGIBLE_NODE.exception("the node rebuilt its confinement three"
            + " times while '" + pb.command().get(0) + "' was starting (the folders its rules were built from keep"
            + " changing, or the allowlist changed): nothing ran; send it again");
        }
      }
    }
  }

  int count() {
    return launchers.size();
  }
}
