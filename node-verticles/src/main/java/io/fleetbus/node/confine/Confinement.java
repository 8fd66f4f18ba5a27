package io.fleetbus.node.confine;

import io.fleetbus.node.grant.NodeGrant;
import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.Set;
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
 * One launcher thread per distinct ruleset (the allowlist may change at run time: a new set makes a new launcher;
 * a changed folder the ruleset was built from, or a newly found private folder, rebuilds them: {@link LauncherPool}).
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
  private final ProcessGrant grant;
  /** The file part of the grant the ruleset is derived from (null for NONE and the tests' hand-made confinements). */
  private final NodeGrant files;
  private final ResourceLimits limits;
  private final LauncherPool pool;

  Confinement(Mode mode, boolean required, int abi, List<Path> allowed, List<Path> excluded) {
    this(mode, required, abi, allowed, excluded, List.of());
  }

  /** @param readable folders inside the excluded ones the started programs still read (the node's job scripts) */
  Confinement(Mode mode, boolean required, int abi, List<Path> allowed, List<Path> excluded, List<Path> readable) {
    this(mode, required, abi, allowed, excluded, readable, ProcessGrant.FILES_ONLY);
  }

  /** @param grant network, signals, limits and execution guards (tests switch parts off: ProcessGrant#without) */
  Confinement(Mode mode, boolean required, int abi, List<Path> allowed, List<Path> excluded, List<Path> readable,
              ProcessGrant grant) {
    this(mode, required, abi, allowed, excluded, readable, grant, List.of());
  }

  /** @param managedLogs where managed processes' output files are (see LandlockRules#bindManaged) */
  Confinement(Mode mode, boolean required, int abi, List<Path> allowed, List<Path> excluded, List<Path> readable,
              ProcessGrant grant, List<Path> managedLogs) {
    this(mode, required, abi, new LandlockRules(mode == Mode.STRICT, abi, allowed, () -> excluded, List::of, readable,
      managedLogs, false, false), grant, null);
  }

  private Confinement(Mode mode, boolean required, int abi, LandlockRules ruleset, ProcessGrant grant, NodeGrant files) {
    this.mode = mode;
    this.required = required;
    this.abi = abi;
    this.ruleset = ruleset;
    this.grant = grant;
    this.files = files;
    this.limits = new ResourceLimits(mode == Mode.NONE || abi == 0 ? ProcessGrant.Limits.NONE : grant.limits());
    this.pool = new LauncherPool(ruleset, this::restriction,
      () -> files == null ? 0 : files.privateFolders().generation());
  }

  /** This confinement with one part of its grant switched off (tests: show what that part stops). */
  Confinement without(ProcessGrant.Part part) {
    return new Confinement(mode, required, abi, ruleset.fresh(), grant.without(part), files);
  }

  /** This confinement with folder hiding on or off (tests: both constructions hold the attack corpus). */
  Confinement hiding(boolean on) {
    return new Confinement(mode, required, abi, ruleset.hiding(on), grant, files);
  }

  /** No confinement, none required (tests, tools that start nothing). */
  public static final Confinement NONE = new Confinement(Mode.NONE, false, 0, List.of(), List.of());

  /** The confinement of this node's tier and conf ({@code confinement}: "scope" | "none" | {mode, required}). */
  public static Confinement of(NodeSettings settings) {
    return of(settings, NodeGrant.of(settings), false);
  }

  /**
   * As above, from {@code files} (the same object the file tools check); {@code legacyCover} builds the scope rules
   * the way they were built before links were handled (following them) — only for the tests that show what that let
   * through.
   */
  static Confinement of(NodeSettings settings, NodeGrant files, boolean legacyCover) {
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
    // nothing of the node's data is readable (job scripts go to their interpreter as text); managed processes append
    // to their own output files
    // excluded folders hidden by a mount namespace per launcher where the node may mount (confinement.hideFolders)
    boolean hide = abi > 0 && conf.getBoolean("hideFolders", true) && MountHiding.available();
    LandlockRules rules = new LandlockRules(mode == Mode.STRICT, abi, files.allowed(), files::excludedNow,
      files::watchedNow, List.of(), List.of(settings.dataDir().toAbsolutePath().resolve("processes").resolve("logs")),
      legacyCover, hide);
    Confinement c = new Confinement(mode, required, abi, rules, ProcessGrant.fromConf(conf, sudo), files);
    LOG.info("process confinement [tier: {}, confinement: {}, required: {}]", settings.capabilityTier(), c.report(), required);
    if (c.active() && !settings.tools().elevateWith().isEmpty()) {
      LOG.warn("commands.elevateWith {} cannot raise privileges for confined processes (the kernel's no_new_privs):"
        + " package-manager commands that need it fail; give the node's user the rights itself, or set confinement"
        + " to none on this node", settings.tools().elevateWith());
    }
    return c;
  }

  /** The file grant this confinement's rulesets come from: the file tools check the same object (one cache of marked folders). */
  public java.util.Optional<NodeGrant> grant() {
    return java.util.Optional.ofNullable(files);
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
    if (active()) {
      j.put("handled", handled()).put("network", grant.network().toJson()).put("limits", limits.toJson())
        .put("hidesFolders", ruleset.hides());
    }
    if (files != null) {
      j.put("files", files.toJson()); // the file scope the tools and the kernel rules both come from
    }
    if (this == NONE) {
      j.put("reason", "starts no processes").put("processGroups", false);
    } else if (!active()) {
      j.put("reason", mode == Mode.NONE ? "conf" : "kernel without Landlock");
    }
    return j;
  }

  /**
   * What the kernel enforces on this node (older kernels handle less): {@code fs} always, {@code net} (TCP bind and
   * connect) from ABI 4, {@code scope} (signals, abstract unix sockets) from ABI 6, and the thread guards.
   */
  JsonObject handled() {
    return new JsonObject().put("fs", true)
      .put("net", !grant.network().open() && Landlock.handledNet(abi) != 0)
      .put("scope", grant.scoped() && Landlock.scopes(abi) != 0)
      .put("execGuard", grant.execGuard())
      .put("unixSockets", grant.unixSockets())
      .put("capabilities", switch (grant.capabilities()) {
        case ALL -> "none (bounding set emptied)";
        case ESCAPES -> "the node user's but " + java.util.Arrays.toString(ThreadGuards.ESCAPES);
        case KEEP -> "the node user's";
      });
  }

  /**
   * What a launcher thread does to itself before it starts anything: hidden folders (while it may still mount), pids
   * cgroup, capabilities, Landlock, seccomp.
   */
  private Runnable restriction(String name, LandlockRules.Bound bound) {
    Map<Path, Long> rules = bound.rules();
    return () -> {
      MountHiding.hide(bound.hidden());
      limits.enterPidsCgroup(name);
      if (grant.capabilities() != ProcessGrant.Capabilities.KEEP) {
        ThreadGuards.dropCapabilities(grant.capabilities() == ProcessGrant.Capabilities.ALL);
      }
      Landlock.restrictCurrentThread(abi, rules, grant.network(), grant.scoped(),
        grant.execGuard() || !grant.unixSockets() ? ThreadGuards.filter(grant.execGuard(), grant.unixSockets()) : null);
    };
  }

  /**
   * The node, once at start: its own file-size limit set to {@code commands.limits.fileSizeMb}, which every process
   * it starts inherits (no prlimit per start for it; see ResourceLimits#limitOwnFileSize).
   */
  public void limitOwnFileSize() {
    if (active() && ResourceLimits.limitOwnFileSize(grant.limits())) {
      LOG.info("file size limited for this node and everything it starts [fileSizeMb: {}]", grant.limits().fileSizeMb());
    }
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
    return spawner(programs, ProcessTrees::programOf, true);
  }

  /** For jobs: as {@link #commandSpawner}, without the CPU-seconds limit (a job runs long on purpose). */
  public Spawner jobSpawner(Supplier<Set<String>> programs) {
    Spawner inner = spawner(programs, ProcessTrees::programOf, false);
    return pb -> {
      requireForCommands();
      return inner.start(pb);
    };
  }

  private Spawner spawner(Supplier<Set<String>> programs, java.util.function.Function<List<String>, List<String>> executablesOf,
                          boolean cpu) {
    if (!active()) {
      return Spawner.DIRECT;
    }
    return pb -> pool.start(programs.get(), executablesOf.apply(pb.command()), false,
      pb.command(limits.wrap(pb.command(), cpu)));
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
   * For managed processes: on a sudo node the strict rules of commands (execute only the allowlisted programs and the
   * managed program itself, see ProcessPrograms) plus appending to their output files; elsewhere
   * {@link #scopeSpawner}. No CPU-seconds limit: a service runs for ever.
   */
  public Spawner managedSpawner(Supplier<Set<String>> programs) {
    if (mode != Mode.STRICT || !active()) {
      return scopeSpawner();
    }
    return pb -> pool.start(programs.get(), managedExecutables(pb.command()), true,
      pb.command(limits.wrap(pb.command(), false)));
  }

  public Spawner scopeSpawner() {
    if (!active()) {
      return Spawner.DIRECT;
    }
    return pb -> pool.startScoped(pb.command(limits.wrap(pb.command(), false)));
  }

  /** What a managed start executes: past a {@code nice -n N} prefix, the managed program too. */
  private static List<String> managedExecutables(List<String> argv) {
    if (argv.size() > 3 && argv.get(0).endsWith("/nice") && "-n".equals(argv.get(1))) {
      return List.of(argv.get(0), argv.get(3));
    }
    return List.of(argv.get(0));
  }

  /** How many launcher threads serve now (tests). */
  int launcherCount() {
    return pool.count();
  }

  /** The ruleset: scope, start-up needs, executables (package-private for tests). */
  Map<Path, Long> rules(Set<Path> executables) {
    return ruleset.rules(executables);
  }
}
