package io.fleetbus.node.settings;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class RuntimeConfigTest {

  private static NodeSettings settings(Path dir) {
    return new NodeSettings("n1", "i1", "sudo", new JsonObject().put("os", "linux"), dir, 1000, List.of("echo", "df"),
      1024, 1000);
  }

  @Test
  void updatesApplyPersistAndSurviveARestart(@TempDir Path dir) throws Exception {
    RuntimeConfig rc = RuntimeConfig.load(settings(dir));
    rc.apply(new JsonObject().put("heartbeatIntervalMs", 300)
      .put("allowlist", new JsonObject().put("add", new JsonArray().add("uptime")).put("remove", new JsonArray().add("df")))
      .put("labels", new JsonObject().put("site", "lab")));
    assertEquals(300, rc.heartbeatIntervalMs(5000));
    assertTrue(rc.allowlist().contains("uptime"));
    assertFalse(rc.allowlist().contains("df"));

    RuntimeConfig reloaded = RuntimeConfig.load(settings(dir));
    assertEquals(300, reloaded.heartbeatIntervalMs(5000));
    assertEquals("lab", reloaded.labels().getString("site"));
    assertEquals(rc.allowlist(), reloaded.allowlist());
  }

  @Test
  void labelsMergeAndNullRemovesOne(@TempDir Path dir) throws Exception {
    RuntimeConfig rc = RuntimeConfig.load(settings(dir));
    rc.apply(new JsonObject().put("labels", new JsonObject().put("site", "lab").put("rack", "r1")));
    assertEquals(new JsonObject().put("os", "linux").put("site", "lab").put("rack", "r1"), rc.labels(),
      "the conf's label stays");
    rc.apply(new JsonObject().put("labels", new JsonObject().put("rack", (String) null).put("os", (String) null)
      .put("site", "lab2")));
    assertEquals(new JsonObject().put("site", "lab2"), rc.labels(), "null removes, even a label from the conf");
    assertEquals(new JsonObject().put("site", "lab2"), RuntimeConfig.load(settings(dir)).labels(), "after a restart too");
  }

  @Test
  void badUpdatesChangeNothing(@TempDir Path dir) throws Exception {
    RuntimeConfig rc = RuntimeConfig.load(settings(dir));
    assertEquals(FailureCode.FORBIDDEN,
      assertThrows(FleetException.class, () -> rc.apply(new JsonObject().put("capabilityTier", "root"))).code());
    assertThrows(FleetException.class, () -> rc.apply(new JsonObject().put("heartbeatIntervalMs", 10)));
    assertThrows(FleetException.class, () -> rc.apply(new JsonObject().put("allowlist",
      new JsonObject().put("add", new JsonArray().add("/bin/sh")))));
    assertThrows(FleetException.class, () -> rc.apply(new JsonObject().put("labels", new JsonObject().put("x", 1))));
    assertThrows(FleetException.class, () -> rc.apply(new JsonObject().put("heartbeatIntervalMs", 500).put("root", true)));
    assertEquals(1000, rc.heartbeatIntervalMs(1000));
    assertFalse(Files.exists(dir.resolve(RuntimeConfig.FILE)));
  }
}
