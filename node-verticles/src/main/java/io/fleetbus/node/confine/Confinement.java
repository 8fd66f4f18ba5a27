package io.fleetbus.node.confine;

import io.fleetbus.node.NodeSettings;
import io.fleetbus.node.grant.NodeGrant;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the kernel lets the processes a node starts do (Landlock), by capability tier:
 * <ul>
 *   <li>sudo: read and write only inside the node's file scope (paths.allow minus paths.deny minus the system
 *       folders minus the node's own data folder), read what a program needs to start ({@link LandlockRules#STARTUP}), and
 *       execute only the real files of the allowlisted programs, package managers, and the one program being started
 *       (run_script's interpreter, a host helper such as journalctl). A payload that execs {@code sh} gets EACCES.</li>
 *   <li>root: {@code confinement: "scope"} (default): everything, execute included, inside the file scope;
 *       {@code "none"}: no kernel confinement.</li>
 *   <li>unprivileged: starts no processes at all.</li>
 * </ul>
 * One launcher thread per distinct ruleset (the allowlist may change at run time: a new set makes a new launcher).
 * Where the kernel has no Landlock the node reports {@code none}; with {@code required} (default on sudo nodes)
 * its command tools then refuse to run (503) rather than run unconfined.
 */
public final class Confinement {
  private static final Logger LOG = LoggerFactory.getLogger(Confinement.class);

  public enum Mode { STRICT, SCOPE, NONE }

  private final Mode mode;
  private final boolean required;
  private final int abi;
  private final LandlockRules ruleset;
  /** The grant the ruleset is derived from (null for NONE and the tests' hand-made confinements). */
  private final NodeGrant grant;
  private final Map<Set<Path>, ConfinedLauncher> launchers = new ConcurrentHashMap<>();
  /** The key of the one scope-mode launcher (managed processes) among the strict ones. */
  private static final Path SCOPE_KEY = Path.of("/", "scope-mode");
  private Set<String> lastPrograms;
  /** After a rebuild for a changed folder, the next one waits this long (see retireIfStale). */
  static final long MIN_STALE_REBUILD_NANOS = 1_000_000_000L;
  private long lastStaleRebuild = System.nanoTime() - MIN_STALE_REBUILD_NANOS;
  /** How many private folders the grant knew of when the launchers were built (a new one rebuilds them). */
  private volatile long builtForGeneration;
  /** Handles a launcher's ruleset names until that launcher restricted itself. */
  private final Map<ConfinedLauncher, PathHandles> unreleased = new ConcurrentHashMap<>();

  Confinement(Mode mode, boolean required, int abi, List<Path> allowed, List<Path> excluded) {
    this(mode, required, abi, allowed, excluded, List.of());
  }

  /** @param readable folders inside the excluded ones the started programs still read (the node's job scripts) */
  Confinement(Mode mode, boolean required, int abi, List<Path> allowed, List<Path> excluded, List<Path> readable) {
    this(mode, required, abi, new LandlockRules(mode == Mode.STRICT, abi, allowed, () -> excluded, readable), null);
  }

  private Confinement(Mode mode, boolean required, int abi, LandlockRules ruleset, NodeGrant grant) {
    this.grant = grant;
    this.mode = mode;
    this.required = required;
    this.abi = abi;
    this.ruleset = ruleset;
  }

  /** No confinement, none required (tests, tools that start nothing). */
  public static final Confinement NONE = new Confinement(Mode.NONE, false, 0, List.of(), List.of());

  /** The confinement of this node's tier and conf ({@code confinement}: "scope" | "none" | {mode, required}). */
  public static Confinement of(NodeSettings settings) {
    return of(settings, NodeGrant.of(settings), false);
  }

  /**
   * As above, from {@code grant} (the same object the file tools check); {@code legacyCover} builds the scope rules
   * the way they were built before links were handled (following them) — only for the tests that show what that let
   * through.
   */
  static Confinement of(NodeSettings settings, NodeGrant grant, boolean legacyCover) {
    JsonObject conf = settings.tools().confinement() == null ? new JsonObject() : settings.tools().confinement();
    boolean sudo = "sudo".equals(settings.capabilityTier());
    String asked = conf.getString("mode", sudo ? "strict" : "scope");
    Mode mode = switch (asked) {
      case "none" -> Mode.NONE;
      case "scope" -> sudo ? Mode.STRICT : Mode.SCOPE;
      case "strict" -> Mode.STRICT;
      default -> throw new IllegalArgumentException("confinement mode '" + asked + "' must be strict, scope or none");
    };
    boolean required = conf.getBoolean("required", sudo);
    int abi = mode == Mode.NONE || settings.unprivileged() ? 0 : Landlock.abi();
    // job scripts are written to <data>/jobs/<id>/ and read by their interpreter
    LandlockRules rules = new LandlockRules(mode == Mode.STRICT, abi, grant.allowed(), grant::excludedNow,
      grant::watchedNow, List.of(settings.dataDir().toAbsolutePath().resolve("jobs")), legacyCover);
    Confinement c = new Confinement(mode, required, abi, rules, grant);
    LOG.info("process confinement [tier: {}, confinement: {}, required: {}]", settings.capabilityTier(), c.report(), required);
    if (c.active() && !settings.tools().elevateWith().isEmpty()) {
      LOG.warn("commands.elevateWith {} cannot raise privileges for confined processes (the kernel's no_new_privs):"
        + " package-manager commands that need it fail; give the node's user the rights itself, or set confinement"
        + " to none on this node", settings.tools().elevateWith());
    }
    return c;
  }

  /** The grant this confinement's rulesets come from: the file tools check the same object (one cache of marked folders). */
  public java.util.Optional<NodeGrant> grant() {
    return java.util.Optional.ofNullable(grant);
  }

  /** What this node says of itself: {@code landlock-strict (ABI 7)}, {@code landlock-scope (ABI 7)} or {@code none (…)}. */
  public String report() {
    if (active()) {
      return "landlock-" + mode.name().toLowerCase() + " (ABI " + abi + ")";
    }
    return mode == Mode.NONE ? "none (conf)" : "none (kernel without Landlock)";
  }

  /**
   * What this node tells the hub (hello, node view, dashboard): {@code mode} landlock-strict | landlock-scope | none,
   * {@code abi}, {@code required}, {@code reason} when none, {@code processGroups} (commands run as process groups
   * killed with the node, see ProcessTrees).
   */
  public JsonObject toJson() {
    JsonObject j = new JsonObject()
      .put("mode", active() ? "landlock-" + mode.name().toLowerCase() : "none")
      .put("abi", active() ? abi : null)
      .put("required", required)
      .put("processGroups", ProcessTrees.get().prefix().isPresent());
    if (this == NONE) {
      j.put("reason", "starts no processes").put("processGroups", false);
    } else if (!active()) {
      j.put("reason", mode == Mode.NONE ? "conf" : "kernel without Landlock");
    }
    return j;
  }

  public boolean active() {
    return mode != Mode.NONE && abi > 0;
  }

  /** For command tools (run_command, run_script, jobs): a 503 where confinement is required but absent. */
  public void requireForCommands() {
    if (required && !active()) {
      throw FailureCode.NO_ELIGIBLE_NODE.exception("this node cannot confine processes (" + report() + ") and its conf"
        + " requires it: command tools do not run here (set confinement.required: false to allow them unconfined)");
    }
  }

  /**
   * Starts processes from the launcher whose ruleset lets the current {@code programs} (allowlist and package
   * managers, looked up on PATH) and the program being started execute.
   */
  public Spawner spawner(Supplier<Set<String>> programs) {
    return spawner(programs, ProcessTrees::programOf);
  }

  /**
   * As above, where the program being started is not only argv[0]: {@code executablesOf} names what the start
   * itself executes (a managed process behind its {@code nice} prefix).
   */
  public Spawner spawner(Supplier<Set<String>> programs, java.util.function.Function<List<String>, List<String>> executablesOf) {
    if (!active()) {
      return Spawner.DIRECT;
    }
    return pb -> started(launcher(programs.get(), executablesOf.apply(pb.command())), pb);
  }

  /** As {@link #spawner}, for command tools: refuses (503) where confinement is required but absent. */
  public Spawner commandSpawner(Supplier<Set<String>> programs) {
    Spawner inner = spawner(programs);
    return pb -> {
      requireForCommands();
      return inner.start(pb);
    };
  }

  /**
   * For managed processes (long-running services an operator defined, which start helpers of their own): the file
   * scope holds (read/write only inside it, never the system folders or the node's data), execution anywhere inside
   * the scope is allowed — the scope mode of root nodes, applied to every tier that confines.
   */
  public Spawner scopeSpawner() {
    if (!active()) {
      return Spawner.DIRECT;
    }
    // made at the first start: the rules name folders (the managed processes' log folder) that exist only by then
    return pb -> {
      retireIfStale();
      return started(launchers.computeIfAbsent(Set.of(SCOPE_KEY), k -> {
        builtForGeneration = generation();
        return bound("scope", ruleset.bindScope());
      }), pb);
    };
  }

  private long generation() {
    return grant == null ? 0 : grant.privateFolders().generation();
  }

  /** A launcher for {@code bound}; its handles are let go once it restricted itself (its first start). */
  private ConfinedLauncher bound(String name, LandlockRules.Bound bound) {
    ConfinedLauncher l = new ConfinedLauncher(name, abi, bound.rules());
    unreleased.put(l, bound.handles());
    return l;
  }

  private Process started(ConfinedLauncher l, ProcessBuilder pb) throws java.io.IOException {
    try {
      return l.start(pb);
    } finally {
      // start() returns (or fails) only after the launcher's restriction ran: the kernel holds the inodes now
      PathHandles h = unreleased.remove(l);
      if (h != null) {
        h.close();
      }
    }
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
    boolean newPrivate = grant != null && generation() != builtForGeneration;
    // a folder that changes all the time (a busy /tmp holding a private folder) would rebuild at every start: after one
    // rebuild, the next waits a while. Only freshness waits: a right is bound to the inode the walk saw, and no confined
    // process can add, remove or rename entries in the folders walked (it holds no right on them)
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

  private ConfinedLauncher launcher(Set<String> programs, List<String> starting) {
    Set<Path> executables = new TreeSet<>();
    if (mode == Mode.STRICT) {
      for (String name : programs) {
        ruleset.resolve(name).ifPresent(executables::add);
      }
      starting.forEach(p -> ruleset.resolve(p).ifPresent(executables::add));
    }
    retireIfStale();
    retireIfChanged(programs);
    return launchers.computeIfAbsent(executables, exe -> {
      builtForGeneration = generation();
      LandlockRules.Bound b = ruleset.bind(exe);
      LOG.info("launcher ready [mode: {}, rules: {}, executables: {}]", mode, b.rules().size(), exe);
      return bound(Integer.toString(launchers.size()), b);
    });
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

  /** How many launcher threads serve now (tests). */
  int launcherCount() {
    return launchers.size();
  }

  /** The ruleset: scope, start-up needs, executables (package-private for tests). */
  Map<Path, Long> rules(Set<Path> executables) {
    return ruleset.rules(executables);
  }
}
