package io.fleetbus.bench.report;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** The rows of one run, in the order measured, with the machine they ran on; written as JSON and as a table. */
public final class Results {
  public static final String CAVEAT = "figures are noisy: a shared 2-core machine, other builds may run at the same"
    + " time; the ratios to the floor of the same run are the figures that count";

  private final String mode;
  private final String command;
  private final JsonObject machine;
  private final long startedAt = System.currentTimeMillis();
  private final List<Row> rows = new ArrayList<>();
  /** Wall seconds of each phase run, in order: where a run's time goes (most of it is not the timed calls). */
  private final Map<String, Double> phaseSeconds = new LinkedHashMap<>();
  private final int largestScaleStep;

  public Results(String mode, String command, JsonObject machine, int largestScaleStep) {
    this.mode = mode;
    this.command = command;
    this.machine = machine;
    this.largestScaleStep = largestScaleStep;
  }

  public synchronized void add(List<Row> more) {
    rows.addAll(more);
  }

  public synchronized void phaseTook(String phase, double seconds) {
    phaseSeconds.put(phase, Math.round(seconds * 10) / 10.0);
  }

  public synchronized List<Row> rows() {
    return List.copyOf(rows);
  }

  public boolean anyFailed() {
    return rows().stream().anyMatch(r -> Row.FAILED.equals(r.status()));
  }

  public JsonObject toJson() {
    Map<String, Row> byId = byId();
    JsonArray list = new JsonArray();
    rows().forEach(r -> list.add(r.toJson(byId.get(Floors.FLOOR), byId.get(Floors.DURABLE), byId.get(Floors.THROUGHPUT))));
    return new JsonObject()
      .put("mode", mode)
      .put("command", command)
      .put("startedAt", startedAt)
      .put("durationSeconds", Math.round((System.currentTimeMillis() - startedAt) / 100.0) / 10.0)
      .put("phaseSeconds", phaseSecondsJson())
      .put("machine", machine)
      .put("caveat", CAVEAT)
      .put("rows", list)
      .put("floors", Floors.summary(byId))
      .put("targets", Targets.judge(byId, largestScaleStep));
  }

  private synchronized JsonObject phaseSecondsJson() {
    JsonObject out = new JsonObject();
    phaseSeconds.forEach(out::put);
    return out;
  }

  public void write(Path file) throws IOException {
    Files.createDirectories(file.toAbsolutePath().getParent());
    Files.writeString(file, toJson().encodePrettily() + "\n");
  }

  private Map<String, Row> byId() {
    Map<String, Row> map = new LinkedHashMap<>();
    rows().forEach(r -> map.put(r.id(), r));
    return map;
  }

  /** Cores, JDK, OS and CPU model of this machine. */
  public static JsonObject machine() {
    String cpu = "unknown";
    try {
      cpu = Files.readAllLines(Path.of("/proc/cpuinfo")).stream().filter(l -> l.startsWith("model name"))
        .map(l -> l.substring(l.indexOf(':') + 1).strip()).findFirst().orElse(cpu);
    } catch (IOException e) {
      // not Linux: the model stays unknown
    }
    return new JsonObject()
      .put("cores", Runtime.getRuntime().availableProcessors())
      .put("jdk", System.getProperty("java.vm.name") + " " + System.getProperty("java.runtime.version"))
      .put("os", System.getProperty("os.name") + " " + System.getProperty("os.version"))
      .put("cpu", cpu);
  }
}
