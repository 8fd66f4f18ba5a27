package io.fleetbus.node.jobs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class OutputLogTest {
  private static final long CAP = 100_000;

  @TempDir
  Path dir;

  private long bytesOnDisk() throws Exception {
    long total = 0;
    for (String f : new String[] {"output.log", "output.1.log"}) {
      Path p = dir.resolve(f);
      total += Files.exists(p) ? Files.size(p) : 0;
    }
    return total;
  }

  @Test
  void oldestLinesGoFirstAndTheWholeStaysUnderTheCap() throws Exception {
    try (OutputLog log = OutputLog.open(dir, CAP)) {
      for (int i = 0; i < 5000; i++) {
        log.append(i % 2 == 0 ? "stdout" : "stderr", "line number " + i, 1000L + i);
      }
      assertTrue(bytesOnDisk() <= CAP, "on disk: " + bytesOnDisk());
      JsonObject first = log.page(0, 10);
      assertEquals(5000, first.getLong("total"));
      long firstKept = first.getLong("firstAvailable");
      assertTrue(firstKept > 0, "early lines were dropped");
      assertEquals("line number " + firstKept, first.getJsonArray("lines").getJsonObject(0).getString("text"));
      JsonObject last = log.page(4998, 10);
      JsonArray lines = last.getJsonArray("lines");
      assertEquals(2, lines.size());
      assertEquals("line number 4999", lines.getJsonObject(1).getString("text"));
      assertEquals(5000, last.getLong("nextOffset"));
    }
  }

  @Test
  void reopeningContinuesTheNumberingAndSkipsACutLine() throws Exception {
    try (OutputLog log = OutputLog.open(dir, CAP)) {
      log.append("stdout", "a", 1);
      log.append("stdout", "b", 2);
    }
    // a node that died mid-write leaves half a line behind
    Files.writeString(dir.resolve("output.log"), "{\"seq\":2,\"str", StandardCharsets.UTF_8, StandardOpenOption.APPEND);
    try (OutputLog log = OutputLog.open(dir, CAP)) {
      assertEquals(2, log.lineCount());
      log.append("stderr", "c", 3);
      JsonArray lines = log.page(0, 10).getJsonArray("lines");
      assertEquals(3, lines.size(), lines.encode());
      assertEquals(2, lines.getJsonObject(2).getLong("seq"));
      assertEquals("c", lines.getJsonObject(2).getString("text"));
      assertEquals(java.util.List.of("c"), log.tail("stderr", 5));
    }
  }
}
