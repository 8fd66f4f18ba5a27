package io.fleetbus.bench;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Set;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/** A killed harness's simulator data in memory is removed by the next harness; a running one's is kept. */
class StaleSimulatorDataTest {
  @Test
  void onlyTheFoldersOfHarnessesThatAreGoneAreRemoved(@TempDir Path shm) throws Exception {
    Process exited = new ProcessBuilder("true").start();
    exited.waitFor();
    long gone = exited.pid();
    long alive = ProcessHandle.current().pid();
    Path dead = Files.createDirectories(shm.resolve("fleetbus-bench-" + gone + "-123").resolve("node-1"));
    Files.writeString(dead.resolve("trust.json"), "{}");
    Files.createDirectories(shm.resolve("fleetbus-bench-" + alive + "-456"));
    Files.createDirectories(shm.resolve("fleetbus-bench-789"));
    Files.createDirectories(shm.resolve("someone-else-" + gone + "-1"));

    BenchRun.removeStale(shm);

    try (Stream<Path> left = Files.list(shm)) {
      assertEquals(Set.of("fleetbus-bench-" + alive + "-456", "fleetbus-bench-789", "someone-else-" + gone + "-1"),
        left.map(p -> p.getFileName().toString()).collect(Collectors.toSet()));
    }
  }
}
