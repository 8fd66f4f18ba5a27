package io.fleetbus.scripts;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.InputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * scripts/common.sh's {@code build_if_needed} (what start-hub.sh, start-node.sh and run.sh run first) in a copy of the
 * tree's shape, with a stand-in build that writes the jars the way a build does (over their paths): configuration and
 * data are not sources, and a jar a running process has open is never written over.
 */
@Timeout(60)
class BuildIfNeededTest {
  private static final Path COMMON = Path.of("..", "scripts", "common.sh").toAbsolutePath().normalize();
  private static final String HUB_JAR = "hub-verticles/target/hub-verticles-0.1.0-SNAPSHOT-fat.jar";
  private static final String NODE_JAR = "node-verticles/target/node-verticles-0.1.0-SNAPSHOT-fat.jar";
  /** Writes both jars in place (truncating whatever file is at the path), as mvn package's shade step does. */
  private static final String STAND_IN_BUILD = "printf new-hub > " + HUB_JAR + " && printf new-node > " + NODE_JAR
    + " && echo stand-in build ran";

  @TempDir
  Path root;
  private Instant built;

  private record Run(int exit, String output) {
  }

  @BeforeEach
  void treeBuiltAMinuteAgo() throws IOException {
    Files.createDirectories(root.resolve("scripts"));
    Files.copy(COMMON, root.resolve("scripts/common.sh"), StandardCopyOption.REPLACE_EXISTING);
    Instant before = Instant.now().minusSeconds(120);
    for (String source : new String[] {"pom.xml", "shared-codecs/pom.xml", "shared-codecs/src/main/java/A.java",
      "shared-codecs/src/main/resources/catalog/tools.json", "hub-verticles/pom.xml",
      "hub-verticles/src/main/java/B.java", "node-verticles/pom.xml", "node-verticles/src/main/java/C.java",
      "conf/hub.json"}) {
      write(source, "source", before);
    }
    built = Instant.now().minusSeconds(60);
    write(HUB_JAR, "old-hub", built);
    write(NODE_JAR, "old-node", built);
  }

  @Test
  void editedOrAddedConfDataAndLogsDoNotRebuild() throws Exception {
    Instant now = Instant.now();
    write("conf/hub.json", "{\"edited\": true}", now);
    write("conf/x.json", "{}", now);
    write("data/hub/state.json", "{}", now);
    write("data/logs/hub.log", "a log line", now);
    write("clients/package.json", "{}", now);
    write("bench/results.json", "{}", now);

    Run run = buildIfNeeded(STAND_IN_BUILD);
    assertEquals(0, run.exit(), run.output());
    assertTrue(run.output().contains("jars up to date"), run.output());
    assertFalse(run.output().contains("stand-in build ran"), run.output());
    assertEquals("old-hub", Files.readString(root.resolve(HUB_JAR)));
    assertEquals(built, Files.getLastModifiedTime(root.resolve(HUB_JAR)).toInstant());
    // the CLI (scripts/fleetbus) says nothing when there is nothing to do
    assertEquals("start would run now\n", buildIfNeeded(STAND_IN_BUILD, "--quiet").output());
  }

  @Test
  void aChangedSourceRebuildsWithoutWritingOverAJarInUse() throws Exception {
    write("node-verticles/src/main/java/C.java", "changed", Instant.now());
    // a running hub: it holds its jar open while the build runs
    try (InputStream running = Files.newInputStream(root.resolve(HUB_JAR))) {
      Run run = buildIfNeeded(STAND_IN_BUILD);
      assertEquals(0, run.exit(), run.output());
      assertTrue(run.output().contains("node-verticles/src/main/java/C.java changed"), run.output());
      assertTrue(run.output().contains("stand-in build ran"), run.output());
      assertEquals("new-hub", Files.readString(root.resolve(HUB_JAR)));
      assertEquals("new-node", Files.readString(root.resolve(NODE_JAR)));
      assertEquals("old-hub", new String(running.readAllBytes(), StandardCharsets.UTF_8),
        "the running process's jar was written over");
    }
    assertFalse(Files.exists(root.resolve(HUB_JAR + ".prev")), "the jars moved aside are removed after the build");
    assertFalse(Files.exists(root.resolve(NODE_JAR + ".prev")));

    Run again = buildIfNeeded(STAND_IN_BUILD);
    assertTrue(again.output().contains("jars up to date"), again.output());
  }

  @Test
  void aFailedBuildLeavesTheJarsItFound() throws Exception {
    write("pom.xml", "changed", Instant.now());
    Run run = buildIfNeeded("printf half > " + HUB_JAR + " && echo compilation failed && false");
    assertNotEquals(0, run.exit(), run.output());
    assertTrue(run.output().contains("the build failed"), run.output());
    assertFalse(run.output().contains("start would run now"), "the start script stops: " + run.output());
    assertEquals("old-hub", Files.readString(root.resolve(HUB_JAR)));
    assertEquals("old-node", Files.readString(root.resolve(NODE_JAR)));
    assertFalse(Files.exists(root.resolve(HUB_JAR + ".prev")));
  }

  @Test
  void missingJarsAreBuilt() throws Exception {
    Files.delete(root.resolve(NODE_JAR));
    Run run = buildIfNeeded(STAND_IN_BUILD);
    assertEquals(0, run.exit(), run.output());
    assertTrue(run.output().contains("stand-in build ran"), run.output());
    assertEquals("new-node", Files.readString(root.resolve(NODE_JAR)));
  }

  private void write(String relative, String content, Instant mtime) throws IOException {
    Path file = root.resolve(relative);
    Files.createDirectories(file.getParent());
    Files.writeString(file, content);
    Files.setLastModifiedTime(file, FileTime.from(mtime));
  }

  /** Runs build_if_needed as the start scripts do (set -euo pipefail, common.sh sourced). */
  private Run buildIfNeeded(String build) throws Exception {
    return buildIfNeeded(build, "");
  }

  private Run buildIfNeeded(String build, String flag) throws Exception {
    ProcessBuilder pb = new ProcessBuilder("bash", "-c",
      "set -euo pipefail; source scripts/common.sh; build_if_needed " + flag + "; echo start would run now")
      .directory(root.toFile()).redirectErrorStream(true);
    pb.environment().put("FLEETBUS_BUILD", build);
    Process p = pb.start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    assertTrue(p.waitFor(30, TimeUnit.SECONDS), out);
    return new Run(p.exitValue(), out);
  }
}
