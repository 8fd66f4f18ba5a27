package io.fleetbus.node.tools.services;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.node.NodeSettings;
import io.fleetbus.node.tools.Samples;
import io.fleetbus.node.tools.TestNode;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.command.HostCommands;
import io.fleetbus.node.tools.command.ProcessRunner;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class SystemdTest {
  @TempDir
  Path dir;

  @Test
  void runningEnabledServiceFromASample() {
    JsonObject s = Systemd.status(Systemd.parse(Samples.read("systemctl-show-ssh.txt")));
    assertEquals("ssh.service", s.getString("name"));
    assertEquals("active", s.getString("status"));
    assertTrue(s.getBoolean("running"));
    assertEquals("automatic", s.getString("start_type"));
    assertEquals(812L, s.getLong("mainPid"));
    assertEquals("Tue 2024-11-12 08:14:03 UTC", s.getString("since"));
    assertTrue(s.getJsonArray("after").contains("network.target"));
  }

  @Test
  void staticAndMissingUnitsFromSamples() {
    JsonObject st = Systemd.status(Systemd.parse(Samples.read("systemctl-show-static.txt")));
    assertEquals("manual", st.getString("start_type"));
    assertNull(st.getLong("mainPid"));
    JsonObject missing = Systemd.status(Systemd.parse(Samples.read("systemctl-show-missing.txt")));
    assertEquals("not-found", missing.getString("loadState"));
    assertNull(missing.getString("unitFile"));
    assertEquals("disabled", Systemd.startType("disabled"));
    assertEquals("masked", Systemd.startType("masked"));
  }

  @Test
  void withoutSystemdTheToolsSaySo() {
    NodeSettings s = TestNode.settings("sudo", dir, null);
    Map<String, ToolHandler> tools = ServiceTools.handlers(
      new Systemd(new HostCommands(true, new ProcessRunner(1024)), dir.resolve("not-booted")), List.of());
    HostCommands real = new HostCommands(true, new ProcessRunner(1024));
    FleetException e = assertThrows(FleetException.class, () -> TestNode.run(tools.get("get_service_status"),
      "get_service_status", new JsonObject().put("service_name", "ssh"), s));
    assertEquals(FailureCode.NO_ELIGIBLE_NODE, e.code());
    assertTrue(e.getMessage().startsWith("not available on this node: "), e.getMessage());
    assertTrue(e.getMessage().contains(real.find("systemctl").isPresent() ? "systemd is not running" : "not installed"),
      e.getMessage());
  }

  @Test
  void protectedServicesAreNeverStoppedWhateverTheSpelling() {
    NodeSettings s = TestNode.settings("sudo", dir, null);
    Map<String, ToolHandler> tools = ServiceTools.handlers(new Systemd(new HostCommands(true, new ProcessRunner(1024))),
      List.of("my-db"));
    for (String[] c : new String[][] {{"sshd", "stop"}, {"ssh.service", "disable"}, {"DBus", "restart"},
      {"my-db.service", "stop"}, {"systemd-journald", "stop"}}) {
      FleetException e = assertThrows(FleetException.class, () -> TestNode.run(tools.get("manage_service"),
        "manage_service", new JsonObject().put("service_name", c[0]).put("action", c[1]), s), c[0]);
      assertEquals(FailureCode.FORBIDDEN, e.code(), c[0] + ": " + e.getMessage());
    }
  }
}
