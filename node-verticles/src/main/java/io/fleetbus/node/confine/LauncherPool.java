package io.fleetbus.node.confine;

import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.BiFunction;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The launcher threads of one {@link Confinement}: one per distinct ruleset (the executables it lets run; managed
 * processes' launchers apart, their rules append to output files), made at the first start that needs it.
 */
final class LauncherPool {
  private static final Logger LOG = LoggerFactory.getLogger(LauncherPool.class);
  /** The key of the one scope-mode launcher (managed processes of a root node) among the strict ones. */
  private static final Path SCOPE_KEY = Path.of("/", "scope-mode");
  /** The mark of the strict launchers of managed processes (their rules add the output files). */
  private static final Path MANAGED_KEY = Path.of("/", "managed-mode");

  private final LandlockRules ruleset;
  private final BiFunction<String, Map<Path, Long>, Runnable> restriction;
  private final Map<Set<Path>, ConfinedLauncher> launchers = new ConcurrentHashMap<>();
  private Set<String> lastPrograms;

  /** @param restriction what a launcher thread named so does to itself with these rules (Confinement#restriction) */
  LauncherPool(LandlockRules ruleset, BiFunction<String, Map<Path, Long>, Runnable> restriction) {
    this.ruleset = ruleset;
    this.restriction = restriction;
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
    retireIfChanged(programs);
    Set<Path> key = new TreeSet<>(executables);
    if (managed) {
      key.add(MANAGED_KEY);
    }
    return launchers.computeIfAbsent(key, k -> {
      Map<Path, Long> rules = managed ? ruleset.managedRules(executables) : ruleset.rules(executables);
      LOG.info("launcher ready [rules: {}, executables: {}, managed: {}]", rules.size(), executables, managed);
      String name = Integer.toString(launchers.size());
      return new ConfinedLauncher(name, restriction.apply(name, rules));
    });
  }

  /** The scope-mode launcher, made at its first start (its rules name the managed logs folder, there by then). */
  ConfinedLauncher scope() {
    return launchers.computeIfAbsent(Set.of(SCOPE_KEY), k -> new ConfinedLauncher("scope",
      restriction.apply("scope", ruleset.scopeRules())));
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

  int count() {
    return launchers.size();
  }
}
