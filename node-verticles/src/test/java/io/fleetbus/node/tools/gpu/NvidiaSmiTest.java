package io.fleetbus.node.tools.gpu;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.tools.Samples;
import io.fleetbus.node.tools.TestNode;
import io.fleetbus.node.tools.command.HostCommands;
import io.fleetbus.node.tools.command.ProcessRunner;
import io.fleetbus.node.tools.system.SystemProbe;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class NvidiaSmiTest {
  @TempDir
  Path dir;

  @Test
  void gpuQueryFromASample() {
    JsonArray gpus = NvidiaSmi.parseGpus(Samples.read("nvidia-smi-query-gpu.csv"));
    assertEquals(2, gpus.size());
    JsonObject first = gpus.getJsonObject(0);
    assertEquals("NVIDIA GeForce RTX 3090", first.getString("name"));
    assertEquals("535.104.05", first.getString("driver"));
    assertEquals(24576, first.getInteger("vramTotalMb"));
    assertEquals(87, first.getInteger("loadPercent"));
    assertNull(gpus.getJsonObject(1).getInteger("vramUsedMb"), "[N/A] is null");
    assertNull(gpus.getJsonObject(1).getInteger("loadPercent"), "[Not Supported] is null");
  }

  @Test
  void computeAppsFromASampleLargestFirstWithCommasInNames() {
    JsonArray apps = NvidiaSmi.parseApps(Samples.read("nvidia-smi-query-compute-apps.csv"));
    assertEquals(3, apps.size());
    assertEquals("/opt/app/bin/render, worker", apps.getJsonObject(0).getString("name"));
    assertEquals(8192, apps.getJsonObject(0).getInteger("vramMb"));
    assertEquals(4021, apps.getJsonObject(1).getInteger("pid"));
    assertNull(apps.getJsonObject(2).getInteger("vramMb"));
    assertEquals(0, NvidiaSmi.parseApps("No devices were found\n").size());
  }

  @Test
  void withoutNvidiaSmiGpuProcessesSayWhyAndSystemInfoStillAnswers() throws Exception {
    NodeSettings s = TestNode.settings("sudo", dir, null);
    HostCommands noGpu = new HostCommands(true, new ProcessRunner(1024), List.of(dir));
    var tools = GpuTools.handlers(new NvidiaSmi(noGpu), new SystemProbe(), "t");
    FleetException e = assertThrows(FleetException.class,
      () -> TestNode.run(tools.get("get_gpu_processes"), "get_gpu_processes", new JsonObject(), s));
    assertEquals(FailureCode.NO_ELIGIBLE_NODE, e.code());
    assertTrue(e.getMessage().startsWith("not available on this node: "), e.getMessage());
    assertTrue(e.getMessage().contains("nvidia-smi"), e.getMessage());
    JsonObject info = TestNode.run(tools.get("get_system_info"), "get_system_info", new JsonObject(), s);
    assertFalse(info.containsKey("nvidia"));
    assertTrue(info.getJsonObject("memory").getLong("totalMb") > 0);
  }
}
