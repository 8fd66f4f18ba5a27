package io.fleetbus.node.tools.services;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.node.settings.NodeSettings;
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

  /** A stand-in systemctl on its own PATH: logs its arguments, answers show with a real sample. */
  private HostCommands fakeSystemctl(Path log) throws Exception {
    Path bin = java.nio.file.Files.createDirectories(dir.resolve("bin"));
    Path show = dir.resolve("show.txt");
    java.nio.file.Files.writeString(show, Samples.read("systemctl-show-ssh.txt"));
    Path systemctl = bin.resolve("systemctl");
    java.nio.file.Files.writeString(systemctl, "#!/bin/sh\necho \"$@\" >> '" + log + "'\n"
      + "if [ \"$1\" = show ]; then cat '" + show + "'; fi\n");
    assertTrue(systemctl.toFile().setExecutable(true));
    return new HostCommands(true, new ProcessRunner(64 * 1024), List.of(bin));
  }

  /** Issue 19, item 10: the seed's set_startup in systemd's words (unmask/enable, disable, mask). */
  @Test
  void setStartupMapsTheSeedsStartTypesToSystemctl() throws Exception {
    NodeSettings s = TestNode.settings("root", dir, null);
    Path log = dir.resolve("systemctl.log");
    Path booted = java.nio.file.Files.createDirectories(dir.resolve("booted"));
    ToolHandler manage = ServiceTools.handlers(new Systemd(fakeSystemctl(log), booted), List.of()).get("manage_service");
    JsonObject off = TestNode.run(manage, "manage_service", new JsonObject().put("service_name", "nginx")
      .put("action", "set_startup").put("startup_type", "disabled"), s);
    assertEquals("disable + mask", off.getString("systemctl"), off.encode());
    assertEquals(List.of("disable --no-ask-password --no-pager -- nginx", "mask --no-ask-password --no-pager -- nginx"),
      calls(log).stream().filter(l -> !l.startsWith("show")).toList());
    assertNull(off.getJsonObject("unsupported"), off.encode());

    java.nio.file.Files.delete(log);
    JsonObject delayed = TestNode.run(manage, "manage_service", new JsonObject().put("service_name", "nginx")
      .put("action", "set_startup").put("startup_type", "auto_delayed"), s);
    assertEquals(List.of("unmask --no-ask-password --no-pager -- nginx", "enable --no-ask-password --no-pager -- nginx"),
      calls(log).stream().filter(l -> !l.startsWith("show")).toList());
    assertTrue(delayed.getJsonObject("unsupported").getString("startup_type").startsWith("not supported on "),
      delayed.encode());
    assertEquals("automatic", delayed.getJsonObject("now").getString("start_type"), "the state after, as systemd shows it");

    FleetException missing = assertThrows(FleetException.class, () -> TestNode.run(manage, "manage_service",
      new JsonObject().put("service_name", "nginx").put("action", "set_startup"), s));
    assertEquals(FailureCode.BAD_REQUEST, missing.code());
    assertTrue(missing.getMessage().contains("'startup_type'"), missing.getMessage());
    java.nio.file.Files.delete(log);
    FleetException guarded = assertThrows(FleetException.class, () -> TestNode.run(manage, "manage_service",
      new JsonObject().put("service_name", "sshd").put("action", "set_startup").put("startup_type", "manual"), s));
    assertEquals(FailureCode.FORBIDDEN, guarded.code(), guarded.getMessage());
    assertTrue(!java.nio.file.Files.exists(log), "systemctl was not run for a protected service");
  }

  private static List<String> calls(Path log) throws Exception {
    return java.nio.file.Files.readAllLines(log);
  }
}
