package io.fleetbus.hub.consent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

class ConfirmPolicyTest {
  private final ConfirmPolicy policy = ConfirmPolicy.fromConf(new JsonObject("""
    {"confirm": "user", "confirmByTool": {"write_file": "second-person"},
     "confirmByLabel": [{"labels": {"env": "prod"}, "confirm": "second-person"},
                        {"labels": {"env": "lab", "team": "a"}, "confirm": "user"}]}"""));

  @Test
  void theMostSpecificRuleDecides() {
    assertEquals("user", policy.forCall("run_command", new JsonObject().put("env", "dev")), "the default");
    assertEquals("second-person", policy.forCall("write_file", new JsonObject()), "a tool rule");
    assertEquals("second-person", policy.forCall("run_command", new JsonObject().put("env", "prod")), "a label rule");
    assertEquals("user", policy.forCall("write_file", new JsonObject().put("env", "lab").put("team", "a")),
      "a label rule overrides the tool rule");
    assertEquals("second-person", policy.forCall("write_file", new JsonObject().put("env", "lab")),
      "every label of a rule must match");
    assertEquals(2, policy.labelRules().size());
  }

  @Test
  void defaultsAndTheOlderSwitch() {
    assertEquals("second-person", ConfirmPolicy.fromConf(null).forTool("run_command"), "four eyes unless conf says");
    assertEquals("user", ConfirmPolicy.fromConf(new JsonObject().put("allowElicitationSelfConfirm", true))
      .forTool("run_command"));
  }

  @Test
  void aWrongValueIsNamed() {
    IllegalArgumentException e = assertThrows(IllegalArgumentException.class, () -> ConfirmPolicy.fromConf(
      new JsonObject().put("confirmByTool", new JsonObject().put("run_command", "anyone"))));
    assertTrue(e.getMessage().contains("approvals.confirmByTool.run_command") && e.getMessage().contains("anyone"),
      e.getMessage());
    assertThrows(IllegalArgumentException.class, () -> ConfirmPolicy.fromConf(new JsonObject()
      .put("confirmByLabel", new io.vertx.core.json.JsonArray().add(new JsonObject().put("confirm", "user")))));
  }
}
