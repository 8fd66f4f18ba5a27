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
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
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

  static final long SCOPE_RIGHTS = READ_FILE | READ_DIR | WRITE_FILE | REMOVE_DIR | REMOVE_FILE | MAKE_DIR | MAKE_REG
    | MAKE_SYM | MAKE_FIFO | MAKE_SOCK | REFER | TRUNCATE;

  private final boolean strict;
  private final int abi;
  private final List<Path> allowed;
  private final java.util.function.Supplier<List<Path>> excludedNow;
  private List<Path> excluded;
  private final List<Path> searchPath;
  private final List<Path> readable;
  private final List<Path> writable;

  /**
   * @param strict   sudo nodes' strict mode: no execution inside the scope, only of the named executables
   * @param readable folders inside the excluded ones the started programs still read (the node's job scripts)
   */
  LandlockRules(boolean strict, int abi, List<Path> allowed, java.util.function.Supplier<List<Path>> excluded,
                List<Path> readable) {
    this.strict = strict;
    this.abi = abi;
    this.allowed = real(allowed);
    this.readable = List.copyOf(readable);
    this.writable = readable.stream().map(p -> p.resolveSibling("processes").resolve("logs")).toList();
    this.excludedNow = excluded;
    String path = System.getenv("PATH");
    this.searchPath = Stream.of((path == null ? "/usr/local/bin:/usr/bin:/bin:/usr/sbin:/sbin" : path)
        .split(File.pathSeparator))
      .filter(s -> !s.isBlank()).map(Path::of).toList();
  }

  /** The ruleset: scope, start-up needs, executables. */
  Map<Path, Long> rules(Set<Path> executables) {
    excluded = real(excludedNow.get());
    Map<Path, Long> rules = new LinkedHashMap<>();
    long scopeRights = strict ? SCOPE_RIGHTS : Landlock.handled(abi);
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

  /** The rules of scope mode: the file scope with execution inside it (managed processes). */
  Map<Path, Long> scopeRules() {
    Map<Path, Long> rules = rules(Set.of());
    for (Path root : allowed) {
      cover(root, SCOPE_RIGHTS | EXECUTE, rules);
    }
    return rules;
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
