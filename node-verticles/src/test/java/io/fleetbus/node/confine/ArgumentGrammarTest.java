package io.fleetbus.node.confine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.node.settings.RuntimeConfig;
import io.fleetbus.node.tools.NodeTools;
import io.fleetbus.node.tools.TestNode;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.fault.FaultSwitch;
import io.fleetbus.shared.fault.FaultSwitches;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The readable layer in front of the kernel: the same GTFOBins payloads sent as run_command on a sudo node whose
 * allowlist holds git, tar, find, awk, env and xargs are each refused (403, or 400 for a shell operator) before
 * anything starts, naming why; and ordinary uses of those programs still run.
 */
@Timeout(120)
class ArgumentGrammarTest {
  @TempDir
  static Path dir;

  @Test
  void everyPayloadIsRefusedBeforeAnythingStarts() throws Exception {
    ConfinementTest.dir = dir;
    ConfinementTest.fixture();
    Map<String, ToolHandler> tools = NodeTools.handlers(ConfinementTest.sudo, RuntimeConfig.none(ConfinementTest.sudo), null,
      "test");
    List<String> ran = new ArrayList<>();
    List<ConfinementTest.Payload> all = ConfinementTest.payloads();
    for (ConfinementTest.Payload p : all) {
      List<String> argv = ConfinementTest.expand(p.argv());
      JsonObject args = new JsonObject().put("command", argv.get(0)).put("args", new JsonArray(argv.subList(1, argv.size())))
        .put("cwd", ConfinementTest.scope.toString());
      try {
        JsonObject r = TestNode.run(tools.get("run_command"), "run_command", args, ConfinementTest.sudo);
        ran.add(p + " → " + r.encode());
      } catch (FleetException e) {
        int code = e.code().code;
        if (code != 403 && code != 400) {
          ran.add(p + " → " + code + " " + e.getMessage());
        }
      }
    }
    assertTrue(ran.isEmpty(), ran.size() + " of " + all.size() + " payloads passed the argument layer:\n" + String.join("\n", ran));
    // payloads only the grammar catches (plain words: no operator, no path out of the scope), refused with it and
    // let through without it (then the kernel is what stops them)
    List<List<String>> grammarOnly = List.of(List.of("git", "-c", "alias.x=!id", "x"), List.of("git", "-c", "core.pager=id", "-p",
      "log"), List.of("git", "--exec-path=.", "status"), List.of("git", "ls-remote", "--upload-pack=id", "."),
      List.of("tar", "-cf", "x.tar", "--checkpoint=1", "--checkpoint-action=exec=id", "plain.txt"),
      List.of("tar", "-I", "id", "-cf", "y.tar", "plain.txt"), List.of("tar", "-cIf", "id", "z.tar", "plain.txt"),
      List.of("find", ".", "-exec", "id", "+"), List.of("find", ".", "-delete"), List.of("find", ".", "-fprint", "list"),
      List.of("env", "awk", "BEGIN{exit}"), List.of("env", "-S", "echo x"), List.of("env", "PAGER=id", "git", "log"),
      List.of("xargs", "awk", "BEGIN{exit}"), List.of("awk", "BEGIN{exit}"));
    Files.writeString(ConfinementTest.scope.resolve("plain.txt"), "plain\n");
    for (boolean grammar : new boolean[] {true, false}) {
      int refused = 0;
      try (FaultSwitches.Restore set = FaultSwitches.overrideInTest(grammar ? FaultSwitches.none()
        : FaultSwitches.of(FaultSwitch.NO_ARGUMENT_GRAMMAR))) {
        for (List<String> argv : grammarOnly) {
          try {
            TestNode.run(tools.get("run_command"), "run_command", new JsonObject().put("command", argv.get(0))
              .put("args", new JsonArray(argv.subList(1, argv.size()))).put("cwd", ConfinementTest.scope.toString()),
              ConfinementTest.sudo);
          } catch (FleetException e) {
            refused++;
          }
        }
      }
      if (grammar) {
        assertEquals(grammarOnly.size(), refused, "with the grammar every one is refused");
      } else {
        assertTrue(refused < grammarOnly.size() / 2, "without it most get past the argument layer (refused: " + refused + ")");
      }
    }
    // what stays possible
    Files.writeString(ConfinementTest.scope.resolve("plain.txt"), "plain\n");
    for (List<String> ok : List.of(List.of("tar", "-cf", ConfinementTest.scope + "/ok.tar", ConfinementTest.scope + "/plain.txt"),
      List.of("find", ConfinementTest.scope.toString(), "-name", "plain.txt"),
      List.of("git", "--version"),
      List.of("env", "echo", "wrapped"),
      List.of("xargs", "echo", "wrapped"))) {
      JsonObject r = TestNode.run(tools.get("run_command"), "run_command", new JsonObject().put("command", ok.get(0))
        .put("args", new JsonArray(ok.subList(1, ok.size()))).put("cwd", ConfinementTest.scope.toString()), ConfinementTest.sudo);
      assertEquals(0, r.getInteger("exitCode"), ok + " → " + r.encode());
    }
  }
}
