package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.vertx.core.json.JsonObject;
import java.io.File;
import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import java.util.jar.Attributes;
import java.util.jar.JarOutputStream;
import java.util.jar.Manifest;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The README's "Try it" block, run as written (bash, every line, in order) in a copy of the checkout, the way a new
 * user runs it on a fresh clone: target/ is empty, so scripts/run.sh builds first. The build here is a stand-in that
 * writes what Debian's Maven 3.8 writes on such a run ({@code ESC[0m} four times, no newline at the end: issue 33) and
 * then the two jars (jars whose manifest points at this build's classes); run.sh starts a real hub and local node
 * from them, and each command's answer is what the README says it is. Needs curl and jq (.ci/run installs them).
 */
@Timeout(300)
@Tag("cluster")
class ReadmeTryItTest {
  private static final Path CHECKOUT = Path.of("..").toAbsolutePath().normalize();

  @TempDir
  Path root;

  /** What Debian's Maven 3.8.7 writes at the end of {@code mvn -q -B package}: colour resets and no newline. */
  static final String MAVEN_TAIL = "\u001b[0m\u001b[0m\u001b[0m\u001b[0m";

  @Test
  void tryItBlockRunsAsWritten() throws Exception {
    for (String tool : new String[] {"curl", "jq"}) {
      assumeTrue(onPath(tool), "the Try-it block needs " + tool + " (Debian package " + tool
        + "; .ci/run installs it): skipped");
    }
    String block = tryItBlock(Files.readString(CHECKOUT.resolve("README.md")));
    copyCheckout();
    Files.writeString(root.resolve("try-it.sh"), withValueChecks(block));

    Path output = root.resolve("try-it.out");
    ProcessBuilder pb = new ProcessBuilder("bash", "-euo", "pipefail", "try-it.sh").directory(root.toFile())
      .redirectErrorStream(true).redirectOutput(output.toFile());
    pb.environment().keySet().removeIf(k -> k.startsWith("FLEETBUS_"));
    pb.environment().put("FLEETBUS_HTTP_PORT", Integer.toString(TestFleet.freePort()));
    pb.environment().put("FLEETBUS_BUILD", "bash first-build.sh");
    Process bash = pb.start();
    String out;
    try {
      boolean ended = bash.waitFor(240, TimeUnit.SECONDS);
      out = Files.readString(output);
      assertTrue(ended, "the block did not end within 240 s; output:\n" + out + "\nrun.log:\n" + runLog());
      assertEquals(0, bash.exitValue(), "a line of the block failed; output:\n" + out + "\nrun.log:\n" + runLog());
      // kill $RUN stopped the hub and the node
      for (ProcessHandle p : startedHere()) {
        assertTrue(p.onExit().get(30, TimeUnit.SECONDS) != null, "still running after kill $RUN: " + p.info());
      }
    } finally {
      bash.destroyForcibly();
      startedHere().forEach(ProcessHandle::destroyForcibly);
    }

    String api = find(out, "^api: (http://\\S+)$", "the api line");
    assertTrue(api.endsWith(":" + pb.environment().get("FLEETBUS_HTTP_PORT")), api);
    JsonObject nodes = json(out, "{\"nodes\":");
    assertEquals("local", nodes.getJsonArray("nodes").getJsonObject(0).getString("nodeId"), nodes.encode());
    assertTrue(nodes.getJsonArray("nodes").getJsonObject(0).getBoolean("online"), nodes.encode());
    JsonObject parked = jsonWith(out, "\"status\":\"pending_approval\"");
    String callId = parked.getString("callId");
    JsonObject approved = jsonWith(out, "\"decidedBy\":\"dev-approver\"");
    assertEquals("approved", approved.getString("status"), approved.encode());
    JsonObject ran = jsonWith(out, "\"callId\":\"" + callId + "\",\"principal\"");
    assertEquals("ok", ran.getString("status"), ran.encode());
    assertTrue(ran.getJsonObject("data").getString("stdout").startsWith("Linux"), ran.encode());
    JsonObject audit = json(out, "{\"records\":");
    assertTrue(audit.encode().contains(callId), "the audit has the approved call: " + audit.encode());
    find(out, "^(eyJ[\\w-]+\\.[\\w-]+\\.[\\w-]+)$", "the operator token from scripts/token.sh");
    assertTrue(runLog().contains("fleetbus stopped"), runLog());
  }

  /** The first bash block after the "Try it" heading. */
  static String tryItBlock(String readme) {
    int heading = readme.indexOf("\n## Try it\n");
    assertTrue(heading >= 0, "README has no '## Try it' section");
    int start = readme.indexOf("```bash\n", heading);
    int end = readme.indexOf("\n```", start + 8);
    assertTrue(start > heading && end > start && readme.indexOf("\n## ", heading + 1) > end, "no bash block in Try it");
    return readme.substring(start + "```bash\n".length(), end + 1);
  }

  /**
   * The block with a check after every line that sets a variable: an empty value (or jq's "null") ends the script,
   * as a non-zero exit does under bash -e, naming the line.
   */
  static String withValueChecks(String block) {
    StringBuilder out = new StringBuilder("trap 'echo \"the block failed (exit $?) at: $BASH_COMMAND\"' ERR\n");
    Pattern assignment = Pattern.compile("(?:^|;\\s*)([A-Z_]+)=");
    List<String> lines = block.lines().toList();
    for (int i = 0; i < lines.size(); i++) {
      out.append(lines.get(i)).append('\n');
      Matcher m = assignment.matcher(lines.get(i));
      while (m.find()) {
        out.append("[[ -n \"${").append(m.group(1)).append(":-}\" && \"$").append(m.group(1))
          .append("\" != null ]] || { echo \"line ").append(i + 1).append(" of the block set ").append(m.group(1))
          .append(" to an empty value\"; exit 1; }\n");
      }
    }
    return out.toString();
  }

  /**
   * What run.sh needs: the scripts, the confs and cluster.xml, an empty target/ in both modules, and a stand-in build
   * (first-build.sh) that prints Maven's first-run tail and puts the two jars (pointing at this build's classes) there.
   */
  private void copyCheckout() throws IOException {
    for (String dir : new String[] {"scripts", "conf"}) {
      try (Stream<Path> files = Files.list(CHECKOUT.resolve(dir))) {
        for (Path f : files.filter(Files::isRegularFile).toList()) {
          Files.createDirectories(root.resolve(dir));
          Files.copy(f, root.resolve(dir).resolve(f.getFileName()), StandardCopyOption.COPY_ATTRIBUTES);
        }
      }
    }
    Files.copy(CHECKOUT.resolve("cluster.xml"), root.resolve("cluster.xml"));
    String hubJar = "hub-verticles/target/hub-verticles-0.1.0-SNAPSHOT-fat.jar";
    String nodeJar = "node-verticles/target/node-verticles-0.1.0-SNAPSHOT-fat.jar";
    pathingJar(root.resolve("built").resolve(hubJar), "io.fleetbus.hub.boot.HubMain");
    pathingJar(root.resolve("built").resolve(nodeJar), "io.fleetbus.node.boot.NodeMain");
    Files.createDirectories(root.resolve("hub-verticles/target"));
    Files.createDirectories(root.resolve("node-verticles/target"));
    Files.writeString(root.resolve("first-build.sh"), String.join("\n",
      "echo '[INFO] a stand-in for mvn -q -B package: the first build of a fresh clone'",
      "printf '" + MAVEN_TAIL.replace("\u001b", "\\033") + "'",
      "cp built/" + hubJar + " " + hubJar, "cp built/" + nodeJar + " " + nodeJar, ""));
  }

  private static boolean onPath(String tool) {
    return Stream.of(System.getenv().getOrDefault("PATH", "").split(File.pathSeparator))
      .anyMatch(dir -> !dir.isEmpty() && Files.isExecutable(Path.of(dir, tool)));
  }

  /** A jar with only a manifest: its main class, and this JVM's classpath as Class-Path (absolute file URLs). */
  private static void pathingJar(Path jar, String mainClass) throws IOException {
    List<String> urls = new ArrayList<>();
    for (String entry : System.getProperty("java.class.path").split(File.pathSeparator)) {
      if (!entry.isBlank()) {
        urls.add(Path.of(entry).toAbsolutePath().toUri().toString());
      }
    }
    Manifest manifest = new Manifest();
    manifest.getMainAttributes().put(Attributes.Name.MANIFEST_VERSION, "1.0");
    manifest.getMainAttributes().put(Attributes.Name.MAIN_CLASS, mainClass);
    manifest.getMainAttributes().put(Attributes.Name.CLASS_PATH, String.join(" ", urls));
    Files.createDirectories(jar.getParent());
    try (OutputStream out = Files.newOutputStream(jar); JarOutputStream ignored = new JarOutputStream(out, manifest)) {
      // the manifest is the whole jar
    }
  }

  /** The JVMs run.sh started from this copy (their command line names its jars). */
  private List<ProcessHandle> startedHere() {
    String here = root.toString();
    return ProcessHandle.allProcesses().filter(p -> p.info().commandLine().map(c -> c.contains(here)).orElse(false))
      .toList();
  }

  private String runLog() throws IOException {
    Path log = root.resolve("run.log");
    return Files.exists(log) ? Files.readString(log).replace("\u001b", "ESC") : "(no run.log)";
  }

  private static String find(String out, String regex, String what) {
    Matcher m = Pattern.compile(regex, Pattern.MULTILINE).matcher(out);
    assertTrue(m.find(), "no " + what + " in the output:\n" + out);
    return m.group(1);
  }

  /** The output line that starts with {@code prefix}, as JSON. */
  private static JsonObject json(String out, String prefix) {
    return out.lines().filter(l -> l.startsWith(prefix)).findFirst().map(JsonObject::new)
      .orElseThrow(() -> new AssertionError("no answer starting " + prefix + " in the output:\n" + out));
  }

  /** The JSON output line that contains {@code part}. */
  private static JsonObject jsonWith(String out, String part) {
    return out.lines().filter(l -> l.startsWith("{") && l.contains(part)).findFirst().map(JsonObject::new)
      .orElseThrow(() -> new AssertionError("no answer with " + part + " in the output:\n" + out));
  }
}
