package io.fleetbus.node.tools.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.shared.msg.Metrics;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;

/** Real OSHI readings of this machine, checked against what the JDK says about it. */
class SystemProbeTest {
  private final SystemProbe probe = new SystemProbe();

  @Test
  void metricsAreRealFigures() {
    Metrics m = probe.metrics(Path.of("."));
    assertTrue(m.memoryTotalMb() > 0);
    assertTrue(m.memoryMb() > 0 && m.memoryMb() <= m.memoryTotalMb());
    assertTrue(m.cpuPercent() >= 0 && m.cpuPercent() <= 100);
    assertTrue(m.uptimeSeconds() > 0);
    assertTrue(Math.abs(m.diskFreeMb() - Path.of(".").toFile().getUsableSpace() / (1024 * 1024)) < 1024);
  }

  @Test
  void systemInfoMatchesTheJdk() {
    JsonObject info = probe.systemInfo("test");
    assertEquals(Runtime.getRuntime().availableProcessors(), info.getJsonObject("cpu").getInteger("logicalCores"));
    assertFalse(info.getString("hostname").isBlank());
    assertEquals("test", info.getString("agentVersion"));
  }

  @Test
  void processesAreSortedByMemoryAndFiltered() {
    JsonArray all = probe.runningProcesses(null, 20).getJsonArray("processes");
    assertTrue(all.size() > 1);
    for (int i = 1; i < all.size(); i++) {
      assertTrue(all.getJsonObject(i - 1).getLong("memoryMb") >= all.getJsonObject(i).getLong("memoryMb"));
    }
    long self = ProcessHandle.current().pid();
    JsonArray java = probe.runningProcesses("JAVA", 200).getJsonArray("processes");
    assertTrue(java.stream().map(JsonObject.class::cast).anyMatch(p -> p.getLong("pid") == self));
    assertTrue(java.stream().map(JsonObject.class::cast).allMatch(p -> p.getString("name").toLowerCase().contains("java")));
  }

  @Test
  void diskUsageListsTheRootStore() {
    JsonArray stores = probe.diskUsage().getJsonArray("fileStores");
    assertTrue(stores.stream().map(JsonObject.class::cast).anyMatch(s -> "/".equals(s.getString("mount"))));
  }
}
