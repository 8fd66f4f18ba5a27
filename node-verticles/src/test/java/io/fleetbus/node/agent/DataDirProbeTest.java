package io.fleetbus.node.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.fleetbus.node.state.AgentStatus;
import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.tools.TestNode;
import io.fleetbus.node.tools.system.SystemProbe;
import io.fleetbus.testsupport.Tmpfs;
import io.vertx.core.Vertx;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Assumptions;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34: the node's health says truthfully whether its data folder can be written. The folder is a small tmpfs
 * (mounted by the test as root; skipped where mount is not permitted): empty, filled to ENOSPC, freed, remounted
 * read-only. Before the fix the probe read the permission bits ({@code canWrite()}), which said true on a full folder.
 */
class DataDirProbeTest {
  @TempDir
  Path dir;
  private Path data;
  private boolean mounted;
  private final Vertx vertx = Vertx.vertx();

  @AfterEach
  void unmount() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    if (mounted) {
      Tmpfs.unmount(data);
    }
  }

  @Test
  void aFullOrReadOnlyDataFolderIsReportedNotWritable() throws Exception {
    NodeSettings settings = TestNode.settings("root", dir, null);
    data = Files.createDirectories(settings.dataDir());
    String refused = Tmpfs.mount(data, "256k");
    Assumptions.assumeTrue(refused == null, "needs to mount a tmpfs (root, CAP_SYS_ADMIN): " + refused);
    mounted = true;
    AgentState state = new AgentState(AgentStatus.initial(System.currentTimeMillis(), 1000));
    Heartbeats heartbeats = new Heartbeats(vertx, settings, new SystemProbe(), null, state);
    List<String> seen = new ArrayList<>();

    seen.add("empty " + probe(heartbeats, state));
    Tmpfs.fill(data.resolve("filler"));
    seen.add("full " + probe(heartbeats, state));
    Files.delete(data.resolve("filler"));
    seen.add("freed " + probe(heartbeats, state));
    String ro = Tmpfs.readOnly(data);
    Assumptions.assumeTrue(ro == null, "needs to remount the tmpfs read-only: " + ro);
    seen.add("read-only " + probe(heartbeats, state));

    assertEquals(List.of("empty true", "full false", "freed true", "read-only false"), seen);
  }

  private static Boolean probe(Heartbeats heartbeats, AgentState state) throws Exception {
    heartbeats.probeDataDir().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
    return state.get().dataDirWritable();
  }


}
