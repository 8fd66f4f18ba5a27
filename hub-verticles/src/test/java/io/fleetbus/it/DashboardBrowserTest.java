package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.time.Instant;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.BlockingQueue;
import java.util.concurrent.LinkedBlockingQueue;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * The dashboard in a real browser (Debian's headless Chromium driven by playwright-core, from
 * dashboard-tests/): sign in, watch a real node come online with live metrics (sparklines with their scales) and
 * another go offline, search and filter the nodes, run a tier-1 tool from the console, open n1's page (host name
 * and addresses from the node, uptime, load, tools, lifecycle, recent calls → a call's output) and offline n2's,
 * see one's own tier-3 request without an Approve button, deny a tier-3 file edit after reading its diff (as a
 * second person), approve a tier-3 command in the Approvals view and see it run, open the audit view (dated
 * records) and follow records to the approved command's output and the denied edit's reason. The script and this
 * test take turns through "STEP" lines; screenshots of every view land in hub-verticles/target/dashboard-screenshots/.
 */
@Timeout(300)
@Tag("cluster")
class DashboardBrowserTest {
  private static final Path CHROMIUM = Path.of("/usr/bin/chromium");
  private static final Path TESTS = Path.of("..", "dashboard-tests").toAbsolutePath().normalize();
  private static final Duration STEP_WAIT = Duration.ofSeconds(120);

  @Test
  void operatorWorksTheFleetFromTheDashboard() throws Exception {
    assumeTrue(Files.isExecutable(CHROMIUM), "no " + CHROMIUM + ": apt-get install -y chromium (.ci/run does)");
    assumeTrue(Files.isDirectory(TESTS.resolve("node_modules/playwright-core")),
      "no " + TESTS.resolve("node_modules") + ": run npm ci in dashboard-tests (.ci/run does)");
    Path shots = Path.of("target", "dashboard-screenshots").toAbsolutePath();
    try (TestFleet fleet = new TestFleet(500)) {
      FleetProcess hub = fleet.startHub();
      Path motd = Files.writeString(fleet.dir.resolve("motd.txt"), "welcome to n1\nmaintenance: none\n");
      ProcessBuilder pb = new ProcessBuilder("node", TESTS.resolve("dashboard.test.mjs").toString())
        .directory(TESTS.toFile()).redirectErrorStream(true);
      pb.environment().put("HUB_URL", "http://127.0.0.1:" + fleet.httpPort);
      pb.environment().put("ADMIN_TOKEN", fleet.token());
      // a second person: the hub refuses to let a requester approve their own call
      pb.environment().put("APPROVER_TOKEN", fleet.approverToken());
      pb.environment().put("SCREENSHOTS", shots.toString());
      pb.environment().put("EDIT_FILE", motd.toString());
      Process browser = pb.start();
      Script script = new Script(browser);
      try {
        script.await("signed-in");
        JsonObject allowEcho = new JsonObject().put("allowlist", new JsonArray().add("echo"));
        fleet.startNode("n1", "sudo", allowEcho);
        FleetProcess n2 = fleet.startNode("n2", "unprivileged", new JsonObject().put("labels", new JsonObject().put("site", "lab")));
        hub.awaitLine(TestFleet.onlineLine("n1"), TestFleet.START);
        script.await("nodes-online");
        n2.kill();
        script.await("done");
        assertTrue(browser.waitFor(60, TimeUnit.SECONDS), "the browser script ends");
        assertEquals(0, browser.exitValue(), script.output());
        assertEquals("welcome to n1\nmaintenance: none\n", Files.readString(motd), "the denied edit changed nothing");
      } finally {
        browser.destroyForcibly();
      }
      for (String shot : List.of("0-sign-in", "1-nodes", "1b-nodes-filtered", "2-console-tier1", "7-node", "3b-own-request",
        "3-approvals-pending", "4-approvals-decided", "5-console-tier3", "6-audit", "8-call")) {
        assertTrue(Files.size(shots.resolve(shot + ".png")) > 10_000, shot + ".png was saved");
      }
    }
  }

  /** The browser script's output, read as it comes; {@link #await} waits for one of its STEP lines. */
  private static final class Script {
    private final BlockingQueue<String> lines = new LinkedBlockingQueue<>();
    private final List<String> seen = new ArrayList<>();

    Script(Process process) {
      Thread reader = new Thread(() -> {
        try (BufferedReader r = new BufferedReader(new InputStreamReader(process.getInputStream(), StandardCharsets.UTF_8))) {
          for (String line; (line = r.readLine()) != null; ) {
            lines.add(line);
          }
        } catch (IOException e) {
          // the script ended
        }
        lines.add("<end>");
      }, "dashboard-script-output");
      reader.setDaemon(true);
      reader.start();
    }

    void await(String step) throws InterruptedException {
      Instant deadline = Instant.now().plus(STEP_WAIT);
      while (Instant.now().isBefore(deadline)) {
        String line = lines.poll(Duration.between(Instant.now(), deadline).toMillis(), TimeUnit.MILLISECONDS);
        if (line == null) {
          break;
        }
        seen.add(line);
        System.out.println("[dashboard] " + line);
        if (line.equals("STEP " + step)) {
          return;
        }
        if (line.equals("<end>") || line.startsWith("FAILED")) {
          drain();
          throw new AssertionError("the browser script failed before step '" + step + "':\n" + output());
        }
      }
      throw new AssertionError("no step '" + step + "' within " + STEP_WAIT.toSeconds() + " s:\n" + output());
    }

    private void drain() throws InterruptedException {
      for (String line; (line = lines.poll(5, TimeUnit.SECONDS)) != null && !line.equals("<end>"); ) {
        seen.add(line);
      }
    }

    String output() {
      return String.join("\n", seen);
    }
  }
}
