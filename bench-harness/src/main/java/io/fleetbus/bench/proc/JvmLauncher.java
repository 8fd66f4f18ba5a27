package io.fleetbus.bench.proc;

import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;

/**
 * Command lines for the JVMs a benchmark starts. From bench.sh: the hub and node fat jars (the
 * project's own launch path) and the bench-harness jar for simulators. From the smoke test: one classpath.
 *
 * @param flags JVM flags every JVM gets (scripts/common.sh's list)
 */
public record JvmLauncher(String java, List<String> flags, List<String> hubTarget, List<String> nodeTarget,
                          String harnessClasspath, List<String> hubFlags, List<String> nodeFlags) {

  public static final String HUB_MAIN = "io.fleetbus.hub.boot.HubMain";
  public static final String NODE_MAIN = "io.fleetbus.node.boot.NodeMain";

  public static JvmLauncher fatJars(Path hubJar, Path nodeJar, Path harnessJar, List<String> flags) {
    return new JvmLauncher(javaBinary(), List.copyOf(flags), List.of("-jar", hubJar.toString()),
      List.of("-jar", nodeJar.toString()), harnessJar.toString(), List.of(), List.of());
  }

  public static JvmLauncher classpath(String classpath, List<String> flags) {
    return new JvmLauncher(javaBinary(), List.copyOf(flags), List.of("-cp", classpath, HUB_MAIN),
      List.of("-cp", classpath, NODE_MAIN), classpath, List.of(), List.of());
  }

  /** Splits a flags string as bench.sh passes it (space separated, no quoting needed for these flags). */
  public static List<String> splitFlags(String flags) {
    return flags == null || flags.isBlank() ? List.of() : Arrays.stream(flags.trim().split("\\s+")).toList();
  }

  /** The same, with flags only the hub JVMs get and flags only the node JVMs get (their memory settings). */
  public JvmLauncher withRoleFlags(List<String> hub, List<String> node) {
    return new JvmLauncher(java, flags, hubTarget, nodeTarget, harnessClasspath, List.copyOf(hub), List.copyOf(node));
  }

  public List<String> hub(List<String> extraFlags, String... args) {
    return command(hubFlags, extraFlags, hubTarget, args);
  }

  public List<String> node(List<String> extraFlags, String... args) {
    return command(nodeFlags, extraFlags, nodeTarget, args);
  }

  /** A main class of this harness (floor server, node simulator) in its own JVM. */
  public List<String> harnessMain(List<String> extraFlags, Class<?> mainClass, String... args) {
    return command(List.of(), extraFlags, List.of("-cp", harnessClasspath, mainClass.getName()), args);
  }

  private List<String> command(List<String> roleFlags, List<String> extraFlags, List<String> target, String... args) {
    List<String> cmd = new ArrayList<>();
    cmd.add(java);
    cmd.addAll(roleFlags);
    cmd.addAll(flags);
    cmd.addAll(extraFlags);
    cmd.addAll(target);
    cmd.addAll(List.of(args));
    return cmd;
  }

  private static String javaBinary() {
    return Path.of(System.getProperty("java.home"), "bin", "java").toString();
  }
}
