package io.fleetbus.node.tools.system;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertInstanceOf;

import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.state.AgentStatus;
import io.fleetbus.node.tools.CallContext;
import io.fleetbus.node.tools.InstantToolHandler;
import io.fleetbus.node.tools.TestNode;
import io.fleetbus.node.tools.ToolHandler;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** get_agent_health answers from the agent's memory: it runs on the event loop, so it must not touch the disk. */
class AgentHealthToolTest {

  @Test
  void theDataFolderProbeIsTheLastSampledOneNotALiveDiskCheck(@TempDir Path dir) throws Exception {
    NodeSettings s = TestNode.settings("root", dir, null);
    Files.createDirectories(s.dataDir());
    ToolHandler health = SystemTools.handlers(new SystemProbe(), "test").get("get_agent_health");
    assertInstanceOf(InstantToolHandler.class, health);

    // the folder is writable right now; the status says the last probe (at 1234) found it was not
    AgentStatus sampled = AgentStatus.initial(0, 1000).withDataDirProbe(false, 1234);
    JsonObject probes = health.run(new JsonObject(), new CallContext("c1", "tester", s, sampled))
      .getJsonObject("probes");
    assertEquals(new JsonObject().put("dataDirWritable", false).put("probedAt", 1234L), probes);

    // before any probe: unknown, not a guess
    JsonObject none = health.run(new JsonObject(), TestNode.ctx(s)).getJsonObject("probes");
    assertEquals(new JsonObject().putNull("dataDirWritable").put("probedAt", 0L), none);
  }
}
