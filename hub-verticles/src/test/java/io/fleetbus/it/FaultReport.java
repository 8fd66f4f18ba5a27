package io.fleetbus.it;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * What a fault scenario expected and what it observed, one JSON line each in
 * {@code target/fault-report.jsonl}; {@code scripts/faults.sh} prints them as the table of docs/reliability.md.
 * Recorded after the scenario's assertions passed, so a line means the promise held.
 */
public final class FaultReport {
  private static final Path FILE = Path.of(System.getProperty("fleetbus.faultReport", "target/fault-report.jsonl"));

  private FaultReport() {
  }

  public static synchronized void record(String scenario, String expected, String observed) {
    String line = new JsonObject().put("scenario", scenario).put("expected", expected).put("observed", observed).encode();
    try {
      Files.createDirectories(FILE.toAbsolutePath().getParent());
      Files.writeString(FILE, line + "\n", StandardOpenOption.CREATE, StandardOpenOption.APPEND);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
