package io.fleetbus.node.tools.disk;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.tools.TestNode;
import io.fleetbus.node.tools.logs.AgentLogFile;
import io.fleetbus.node.tools.sandbox.PathScope;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.FileTime;
import java.time.Instant;
import java.time.temporal.ChronoUnit;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class CleanDiskSpaceToolTest {
  @TempDir
  Path dir;

  private static Path aged(Path p, int days) throws Exception {
    Files.writeString(p, "x".repeat(100));
    Files.setLastModifiedTime(p, FileTime.from(Instant.now().minus(days, ChronoUnit.DAYS)));
    return p;
  }

  @Test
  void deletesOnlyOldRegularFilesAndDryRunCountsThem() throws Exception {
    Path temp = Files.createDirectories(dir.resolve("tmp/sub"));
    Path old = aged(temp.resolve("old.bin"), 10);
    Path fresh = aged(temp.resolve("fresh.bin"), 1);
    Path keep = aged(dir.resolve("keep.txt"), 30);
    Files.createSymbolicLink(temp.resolve("link"), keep);
    NodeSettings s = TestNode.settings("sudo", dir, new JsonObject().put("cleanup",
      new JsonObject().put("temp", dir.resolve("tmp").toString())));
    CleanDiskSpaceTool tool = new CleanDiskSpaceTool(PathScope.of(s));
    JsonObject dry = TestNode.run(tool, "clean_disk_space", new JsonObject().put("target", "temp").put("dry_run", true), s);
    assertEquals(1, dry.getLong("would_delete_files"));
    assertTrue(Files.exists(old));
    JsonObject r = TestNode.run(tool, "clean_disk_space", new JsonObject().put("target", "temp"), s);
    assertEquals(1, r.getLong("deleted_files"));
    assertEquals(100, r.getLong("bytes"));
    assertFalse(Files.exists(old));
    assertTrue(Files.exists(fresh) && Files.exists(keep) && Files.isSymbolicLink(temp.resolve("link")));
  }

  @Test
  void agentLogsSpareTheLiveLogAndNamedFoldersComeFromConfig() throws Exception {
    Path cache = Files.createDirectories(dir.resolve("cache"));
    NodeSettings s = TestNode.settings("sudo", dir, new JsonObject().put("cleanup",
      new JsonObject().put("folders", new JsonObject().put("render_cache", cache.toString()))));
    Path live = AgentLogFile.of(s.dataDir());
    Files.createDirectories(live.getParent());
    aged(live, 20);
    Path rolled = aged(live.resolveSibling("node.1.log"), 20);
    CleanDiskSpaceTool tool = new CleanDiskSpaceTool(PathScope.of(s));
    TestNode.run(tool, "clean_disk_space", new JsonObject().put("target", "agent_logs"), s);
    assertTrue(Files.exists(live));
    assertFalse(Files.exists(rolled));
    aged(cache.resolve("frame.png"), 8);
    assertEquals(1, TestNode.run(tool, "clean_disk_space", new JsonObject().put("target", "render_cache"), s)
      .getLong("deleted_files"));
    FleetException e = assertThrows(FleetException.class,
      () -> TestNode.run(tool, "clean_disk_space", new JsonObject().put("target", "windows_temp"), s));
    assertEquals(FailureCode.BAD_REQUEST, e.code());
    assertTrue(e.getMessage().contains("render_cache"), e.getMessage());
  }
}
