package io.fleetbus.hub.api;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.fleetbus.hub.authz.Caller;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.msg.ToolCall;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;

/** How a call is built from what a frontend sent: aliases keep their meaning (issue 19, item 3). */
class CallSubmitterTest {
  private final CallSubmitter calls = new CallSubmitter(null, ToolCatalog.load(), 30_000);
  private final Caller admin = new Caller("alice", List.of("admin"));

  @Test
  void runPowershellRunsPowershellNotBash() {
    ToolCall call = calls.prepare(admin, "run_powershell", new JsonObject().put("script", "Get-Date"), "n1", null, false);
    assertEquals("run_script", call.tool());
    assertEquals("pwsh", call.args().getString("interpreter"));
  }

  @Test
  void anInterpreterNamedOutrightWinsAndOtherAliasesKeepTheDefault() {
    assertEquals("sh", calls.prepare(admin, "run_powershell", new JsonObject().put("script", "date")
      .put("interpreter", "sh"), "n1", null, false).args().getString("interpreter"));
    JsonObject plain = new JsonObject().put("script", "date");
    assertEquals("bash", calls.prepare(admin, "execute_script", plain, "n1", null, false).args().getString("interpreter"));
    assertNull(plain.getString("interpreter"), "the caller's arguments are not changed");
  }
}
