package io.fleetbus.bench.report;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.util.HashMap;
import java.util.Map;
import org.junit.jupiter.api.Test;

/**
 * The run_command ÷ ssh target is judged from the fleet phase's alternating blocks when the run has them: the two rows
 * are timed minutes apart in two phases, and on a shared machine that alone moved the ratio from 0.39× to 0.89× (stop 41,
 * where the same code timed 0.9× against the stop-40 code's 1.0× in alternation).
 */
class RunCommandTargetTest {
  private static final String TARGET = "run_command ≤ 0.5× ssh ControlMaster time (p50)";

  private static Row timed(String id, double p50) {
    return new Row(id, id, Row.OK, p50, p50, 1.0, 0, 100, null, null);
  }

  private static JsonObject judged(Map<String, Row> rows) {
    return Targets.judge(rows, 0).stream().map(JsonObject.class::cast)
      .filter(t -> TARGET.equals(t.getString("target"))).findFirst().orElseThrow();
  }

  @Test
  void theSameRunBlocksDecideWhenPresent() {
    Map<String, Row> rows = new HashMap<>();
    rows.put("run_command", timed("run_command", 13.3));
    rows.put("ssh_controlmaster", timed("ssh_controlmaster", 14.9));
    assertEquals(false, judged(rows).getBoolean("met"), "rows of two phases: 13.3 / 14.9 = 0.89");
    rows.put("run_command_vs_ssh", Row.figures("run_command_vs_ssh", "x", new JsonObject().put("onP50Ms", 6.0)
      .put("offP50Ms", 15.0).put("deltaMs", -9.0).put("ratio", 0.4), null));
    JsonObject t = judged(rows);
    assertEquals(0.4, t.getDouble("value"), 1e-9);
    assertEquals(true, t.getBoolean("met"));
    assertTrue(t.getString("shown").contains("alternating blocks"), t.encode());
  }

  @Test
  void withoutSshTheRowsOfTwoPhasesStillJudge() {
    Map<String, Row> rows = new HashMap<>();
    rows.put("run_command", timed("run_command", 5.6));
    rows.put("ssh_controlmaster", timed("ssh_controlmaster", 14.5));
    rows.put("run_command_vs_ssh", Row.notAvailable("run_command_vs_ssh", "x", "skipped: no sshd"));
    JsonObject t = judged(rows);
    assertEquals(5.6 / 14.5, t.getDouble("value"), 1e-9);
    assertTrue(t.getString("shown").contains("two phases"), t.encode());
  }
}
