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

import io.fleetbus.node.NodeSettings;
import io.fleetbus.node.tools.sandbox.PathScope;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonObject;
import java.io.File;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Supplier;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * What the kernel lets the processes a node starts do (Landlock), by capability tier:
 * <ul>
 *   <li>sudo: read and write only inside the node's file scope (paths.allow minus paths.deny minus the system
 *       folders minus the node's own data folder), read what a program needs to start ({@link #STARTUP}), and
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

  static final long SCOPE_RIGHTS = READ_FILE | READ_DIR | WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_DIR | MAKE_REG
    | MAKE_SYM | MAKE_FIFO | MAKE_SOCK | REFER | TRUNCATE;

  public enum Mode { STRICT, SCOPE, NONE }

  private final Mode mode;
  private final boolean required;
  private final int abi;
  private final List<Path> allowed;
  private final List<Path> excluded;
  private final List<Path> searchPath;
  private final List<Path> readable;
  private final List<Path> writable;
  private final Map<Set<Path>, ConfinedLauncher> launchers = new ConcurrentHashMap<>();
  /** The key of the one scope-mode launcher (managed processes) among the strict ones. */
  private static final Path SCOPE_KEY = Path.of("/", "scope-mode");
  private Set<String> lastPrograms;

  Confinement(Mode mode, boolean required, int abi, List<Path> allowed, List<Path> excluded) {
    this(mode, required, abi, allowed, excluded, List.of());
  }

  /** @param readable folders inside the excluded ones the started programs still read (the node's job scripts) */
  Confinement(Mode mode, boolean required, int abi, List<Path> allowed, List<Path> excluded, List<Path> readable) {
    this.mode = mode;
    this.required = required;
    this.abi = abi;
    this.allowed = real(allowed);
    this.readable = List.copyOf(readable);
    this.writable = readable.stream().map(p -> p.resolveSibling("processes").resolve("logs")).toList();
    this.excluded = real(excluded);
    String path = System.getenv("PATH");
    this.searchPath = Stream.of((path == null ? "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin" : path).split(File.pathSeparator))
      .filter(s -> !s.isBlank()).map(Path::of).toList();
  }

  /** No confinement, none required (tests, tools that start nothing). */
  public static final Confinement NONE = new Confinement(Mode.NONE, false, 0, List.of(), List.of());

  /** The confinement of this node's tier and conf ({@code confinement}: "scope" | "none" | {mode, required}). */
  public static Confinement of(NodeSettings settings) {
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
    List<Path> excluded = new ArrayList<>(settings.tools().deniedPaths());
    if (sudo) {
      PathScope.SYSTEM_PATHS.forEach(p -> excluded.add(Path.of(p)));
    }
    excluded.add(settings.dataDir().toAbsolutePath());
    int abi = mode == Mode.NONE || settings.unprivileged() ? 0 : Landlock.abi();
    // job scripts are written to <data>/jobs/<id>/ and read by their interpreter
    Confinement c = new Confinement(mode, required, abi, settings.tools().allowedRoots(), excluded,
      List.of(settings.dataDir().toAbsolutePath().resolve("jobs")));
    LOG.info("process confinement [tier: {}, confinement: {}, required: {}]", settings.capabilityTier(), c.report(), required);
    if (c.active() && !settings.tools().elevateWith().isEmpty()) {
      LOG.warn("commands.elevateWith {} cannot raise privileges for confined processes (the kernel's no_new_privs):"
        + " package-manager commands that need it fail; give the node's user the rights itself, or set confinement"
        + " to none on this node", settings.tools().elevateWith());
    }
    return c;
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
    return pb -> launcher(programs.get(), executablesOf.apply(pb.command())).start(pb);
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
    return pb -> launchers.computeIfAbsent(Set.of(SCOPE_KEY),
      k -> new ConfinedLauncher("scope", abi, scopeRules())).start(pb);
  }

  private Map<Path, Long> scopeRules() {
    Map<Path, Long> rules = rules(Set.of());
    for (Path root : allowed) {
      cover(root, SCOPE_RIGHTS | EXECUTE, rules);
    }
    return rules;
  }

  private ConfinedLauncher launcher(Set<String> programs, List<String> starting) {
    Set<Path> executables = new TreeSet<>();
    if (mode == Mode.STRICT) {
      for (String name : programs) {
        resolve(name).ifPresent(executables::add);
      }
      starting.forEach(p -> resolve(p).ifPresent(executables::add));
    }
    retireIfChanged(programs);
    return launchers.computeIfAbsent(executables, exe -> {
      Map<Path, Long> rules = rules(exe);
      LOG.info("launcher ready [mode: {}, rules: {}, executables: {}]", mode, rules.size(), exe);
      return new ConfinedLauncher(Integer.toString(launchers.size()), abi, rules);
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
    Map<Path, Long> rules = new LinkedHashMap<>();
    long scopeRights = mode == Mode.STRICT ? SCOPE_RIGHTS : Landlock.handled(abi);
    for (Path root : allowed) {
      cover(root, scopeRights, rules);
    }
    STARTUP.forEach(p -> rules.merge(Path.of(p), READ_FILE | READ_DIR, (a, b) -> a | b));
    readable.forEach(p -> rules.merge(p, READ_FILE | READ_DIR, (a, b) -> a | b));
    // a managed process's output goes to <data>/processes/logs/<name>.log, opened by the child itself
    writable.forEach(p -> rules.merge(p, READ_FILE | READ_DIR | WRITE_FILE | MAKE_REG | TRUNCATE, (a, b) -> a | b));
    STARTUP_WRITABLE.forEach(p -> rules.merge(Path.of(p), READ_FILE | WRITE_FILE, (a, b) -> a | b));
    STARTUP_EXECUTABLE.forEach(p -> rules.merge(Path.of(p), READ_FILE | EXECUTE, (a, b) -> a | b));
    // commands start behind setsid (a process group of their own: see ProcessTrees); it execs the program in place
    ProcessTrees.get().prefix().ifPresent(p -> rules.merge(p, READ_FILE | EXECUTE, (a, b) -> a | b));
    for (Path exe : executables) {
      rules.merge(exe, READ_FILE | EXECUTE, (a, b) -> a | b);
      List<String> parts = COMPANIONS.get(exe.getFileName().toString());
      if (parts != null) {
        parts.forEach(p -> rules.merge(Path.of(p), READ_FILE | READ_DIR | EXECUTE, (a, b) -> a | b));
      }
    }
    return rules;
  }

  /** {@code rights} beneath {@code dir}, except beneath the excluded folders (Landlock only adds: cover around them). */
  private void cover(Path dir, long rights, Map<Path, Long> rules) {
    for (Path ex : excluded) {
      if (dir.startsWith(ex)) {
        return;
      }
    }
    boolean holdsExcluded = excluded.stream().anyMatch(ex -> ex.startsWith(dir) && !ex.equals(dir));
    if (!holdsExcluded) {
      rules.merge(dir, rights, (a, b) -> a | b);
      return;
    }
    // the folder itself may be listed, not its excluded parts
    rules.merge(dir, rights & READ_DIR, (a, b) -> a | b);
    try (Stream<Path> children = Files.list(dir)) {
      for (Path child : children.toList()) {
        Path real = realOrSelf(child);
        if (Files.isDirectory(child)) {
          cover(real, rights, rules); // a link is judged (and granted) by where it leads
        } else if (excluded.stream().noneMatch(real::startsWith)) {
          rules.merge(child, rights, (a, b) -> a | b);
        }
      }
    } catch (IOException e) {
      LOG.warn("cannot list {} for the confinement scope: left out [reason: {}]", dir, e.getMessage());
    }
  }

  private java.util.Optional<Path> resolve(String program) {
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
