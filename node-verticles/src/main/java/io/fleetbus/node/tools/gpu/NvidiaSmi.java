package io.fleetbus.node.tools.gpu;

import io.fleetbus.node.tools.command.HostCommands;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.Comparator;
import java.util.List;
import java.util.Optional;

/** nvidia-smi's CSV queries and their parsing ("[N/A]" and "[Not Supported]" become null). */
public final class NvidiaSmi {
  static final String GPU_FIELDS = "index,name,driver_version,memory.total,memory.used,utilization.gpu,temperature.gpu";
  static final String APP_FIELDS = "gpu_uuid,pid,process_name,used_memory";

  private final HostCommands host;

  public NvidiaSmi(HostCommands host) {
    this.host = host;
  }

  /** The GPUs, or empty when this node has no nvidia-smi or may not start it (get_system_info stays useful). */
  public Optional<JsonArray> gpusIfPresent() {
    if (!host.spawningAllowed() || host.find("nvidia-smi").isEmpty()) {
      return Optional.empty();
    }
    try {
      return Optional.of(parseGpus(query(host.find("nvidia-smi").get(), "--query-gpu=" + GPU_FIELDS)));
    } catch (Exception e) {
      return Optional.empty();
    }
  }

  /** Per-process VRAM, largest first; 503 "not available on this node" without NVIDIA tooling. */
  public JsonArray computeApps() throws Exception {
    Path smi = host.require("nvidia-smi", "GPU process data (no NVIDIA GPU tooling on this node)");
    return parseApps(query(smi, "--query-compute-apps=" + APP_FIELDS));
  }

  private String query(Path smi, String query) throws Exception {
    JsonObject r = host.run(List.of(smi.toString(), query, "--format=csv,noheader,nounits"), 15_000, 256 * 1024);
    if (!Integer.valueOf(0).equals(r.getInteger("exitCode"))) {
      throw FailureCode.NO_ELIGIBLE_NODE.exception("not available on this node: nvidia-smi failed ("
        + (r.getString("stdout", "") + r.getString("stderr", "")).strip() + ")");
    }
    return r.getString("stdout");
  }

  public static JsonArray parseGpus(String csv) {
    JsonArray gpus = new JsonArray();
    for (String[] f : rows(csv, 7)) {
      gpus.add(new JsonObject().put("index", integer(f[0])).put("name", text(f[1])).put("driver", text(f[2]))
        .put("vramTotalMb", integer(f[3])).put("vramUsedMb", integer(f[4])).put("loadPercent", integer(f[5]))
        .put("temperatureC", integer(f[6])));
    }
    return gpus;
  }

  public static JsonArray parseApps(String csv) {
    List<JsonObject> apps = rows(csv, 4).stream().map(f -> new JsonObject().put("gpu", text(f[0]))
      .put("pid", integer(f[1])).put("name", text(f[2])).put("vramMb", integer(f[3]))).toList();
    JsonArray sorted = new JsonArray();
    apps.stream().sorted(Comparator.comparing((JsonObject a) -> a.getInteger("vramMb") == null ? -1 : a.getInteger("vramMb"))
      .reversed()).forEach(sorted::add);
    return sorted;
  }

  /** Rows with the expected field count; a process name with commas keeps them (they sit between fixed fields). */
  private static List<String[]> rows(String csv, int fields) {
    return csv.lines().map(String::strip).filter(l -> !l.isEmpty() && !l.startsWith("No devices")).map(l -> {
      String[] parts = l.split(",\\s*", -1);
      if (parts.length > fields) {
        String[] merged = new String[fields];
        int extra = parts.length - fields;
        System.arraycopy(parts, 0, merged, 0, 2);
        merged[2] = String.join(", ", java.util.Arrays.copyOfRange(parts, 2, 3 + extra));
        System.arraycopy(parts, 3 + extra, merged, 3, fields - 3);
        return merged;
      }
      return parts;
    }).filter(p -> p.length == fields).toList();
  }

  private static String text(String v) {
    String s = v.strip();
    return s.isEmpty() || s.startsWith("[") ? null : s;
  }

  private static Integer integer(String v) {
    String s = text(v);
    if (s == null) {
      return null;
    }
    try {
      return (int) Math.round(Double.parseDouble(s));
    } catch (NumberFormatException e) {
      return null;
    }
  }
}
