package io.fleetbus.node.tools.osprocess;

import io.fleetbus.node.tools.CallContext;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.shared.trust.SecretMasker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Comparator;
import java.util.HashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.TreeSet;
import oshi.SystemInfo;
import oshi.software.os.InternetProtocolStats;
import oshi.software.os.OSProcess;

/** list_processes: by name and/or listening TCP port, with command lines (secrets masked). */
public final class ListProcessesTool implements ToolHandler {
  private static final long MB = 1024L * 1024L;

  private final SystemInfo system;

  public ListProcessesTool(SystemInfo system) {
    this.system = system;
  }

  @Override
  public JsonObject run(JsonObject args, CallContext ctx) {
    String name = args.getString("name");
    Integer port = args.getInteger("port");
    int limit = args.getInteger("limit");
    Map<Integer, TreeSet<Integer>> listening = listeningPorts();
    String needle = name == null ? null : name.toLowerCase(Locale.ROOT);
    List<OSProcess> all = system.getOperatingSystem().getProcesses();
    long totalMem = system.getHardware().getMemory().getTotal();
    int cores = Math.max(1, system.getHardware().getProcessor().getLogicalProcessorCount());
    List<OSProcess> matching = all.stream()
      .filter(p -> needle == null || p.getName().toLowerCase(Locale.ROOT).contains(needle))
      .filter(p -> port == null || listening.getOrDefault(p.getProcessID(), new TreeSet<>()).contains(port))
      .sorted(Comparator.comparingLong(OSProcess::getResidentMemory).reversed())
      .toList();
    JsonArray out = new JsonArray();
    for (OSProcess p : matching.subList(0, Math.min(limit, matching.size()))) {
      out.add(new JsonObject()
        .put("pid", p.getProcessID())
        .put("name", p.getName())
        .put("command", SecretMasker.maskLine(p.getCommandLine()))
        .put("user", p.getUser())
        .put("cpuPercent", Math.round(1000.0 * p.getProcessCpuLoadCumulative() / cores) / 10.0)
        .put("memoryPercent", totalMem == 0 ? 0 : Math.round(1000.0 * p.getResidentMemory() / totalMem) / 10.0)
        .put("memoryMb", p.getResidentMemory() / MB)
        .put("ports", new JsonArray(List.copyOf(listening.getOrDefault(p.getProcessID(), new TreeSet<>())))));
    }
    return new JsonObject().put("processes", out).put("count", out.size()).put("total", all.size())
      .put("filtered", matching.size());
  }

  /** pid → TCP ports it listens on. */
  private Map<Integer, TreeSet<Integer>> listeningPorts() {
    Map<Integer, TreeSet<Integer>> ports = new HashMap<>();
    for (InternetProtocolStats.IPConnection c : system.getOperatingSystem().getInternetProtocolStats().getConnections()) {
      if (c.getType().startsWith("tcp") && c.getState() == InternetProtocolStats.TcpState.LISTEN && c.getowningProcessId() > 0) {
        ports.computeIfAbsent(c.getowningProcessId(), k -> new TreeSet<>()).add(c.getLocalPort());
      }
    }
    return ports;
  }
}
