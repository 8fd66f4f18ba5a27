package io.fleetbus.node.tools.system;

import io.fleetbus.shared.msg.Metrics;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Comparator;
import java.util.List;
import java.util.Locale;
import oshi.SystemInfo;
import oshi.hardware.CentralProcessor;
import oshi.hardware.GlobalMemory;
import oshi.hardware.GraphicsCard;
import oshi.hardware.HardwareAbstractionLayer;
import oshi.software.os.OSFileStore;
import oshi.software.os.OSProcess;
import oshi.software.os.OperatingSystem;

/**
 * Reads the machine through OSHI. Every method blocks (native calls, /proc reads): call it from a
 * worker thread. CPU load is measured between two successive {@link #metrics()} calls, which the
 * heartbeat makes one at a time (ordered blocking code), so the tick state needs no lock.
 */
public final class SystemProbe {
  private static final long MB = 1024L * 1024L;

  private final HardwareAbstractionLayer hardware;
  private final OperatingSystem os;
  private long[] previousTicks;
  private volatile double lastCpuPercent;

  public SystemProbe() {
    SystemInfo info = new SystemInfo();
    this.hardware = info.getHardware();
    this.os = info.getOperatingSystem();
    this.previousTicks = hardware.getProcessor().getSystemCpuLoadTicks();
  }

  /** Live figures for a heartbeat. */
  public Metrics metrics(java.nio.file.Path diskOf) {
    CentralProcessor cpu = hardware.getProcessor();
    long[] ticks = cpu.getSystemCpuLoadTicks();
    double load = cpu.getSystemCpuLoadBetweenTicks(previousTicks);
    previousTicks = ticks;
    lastCpuPercent = round(Math.max(0, load) * 100);
    GlobalMemory mem = hardware.getMemory();
    double[] avg = cpu.getSystemLoadAverage(1);
    long diskFree = diskOf.toFile().getUsableSpace() / MB;
    return new Metrics(lastCpuPercent, (mem.getTotal() - mem.getAvailable()) / MB, mem.getTotal() / MB, diskFree,
      os.getSystemUptime(), avg.length > 0 ? round(avg[0]) : -1, null);
  }

  /** What get_system_info answers; its disk is every local file store together, counted as df counts. */
  public JsonObject systemInfo(String agentVersion) {
    CentralProcessor cpu = hardware.getProcessor();
    GlobalMemory mem = hardware.getMemory();
    DiskSpace disk = DiskSpace.NONE;
    for (OSFileStore store : os.getFileSystem().getFileStores(true)) {
      disk = disk.plus(DiskSpace.of(store));
    }
    JsonArray gpus = new JsonArray();
    for (GraphicsCard card : hardware.getGraphicsCards()) {
      gpus.add(new JsonObject().put("name", card.getName()).put("vendor", card.getVendor())
        .put("driver", card.getVersionInfo()).put("vramMb", card.getVRam() / MB));
    }
    OperatingSystem.OSVersionInfo version = os.getVersionInfo();
    return new JsonObject()
      .put("hostname", os.getNetworkParams().getHostName())
      .put("os", new JsonObject().put("family", os.getFamily()).put("manufacturer", os.getManufacturer())
        .put("version", version.getVersion()).put("build", version.getBuildNumber())
        .put("bitness", os.getBitness()))
      .put("cpu", new JsonObject().put("model", cpu.getProcessorIdentifier().getName().strip())
        .put("logicalCores", cpu.getLogicalProcessorCount())
        .put("physicalCores", cpu.getPhysicalProcessorCount())
        .put("usagePercent", lastCpuPercent))
      .put("memory", new JsonObject().put("totalMb", mem.getTotal() / MB)
        .put("usedMb", (mem.getTotal() - mem.getAvailable()) / MB)
        .put("availableMb", mem.getAvailable() / MB))
      .put("disk", disk.toJson())
      .put("gpus", gpus)
      .put("uptimeSeconds", os.getSystemUptime())
      .put("agentVersion", agentVersion);
  }

  /** What get_disk_usage answers: every file store, its figures as df shows them ({@link DiskSpace}). */
  public JsonObject diskUsage() {
    JsonArray stores = new JsonArray();
    for (OSFileStore store : os.getFileSystem().getFileStores(false)) {
      stores.add(new JsonObject().put("name", store.getName()).put("mount", store.getMount())
        .put("type", store.getType()).mergeIn(DiskSpace.of(store).toJson()));
    }
    return new JsonObject().put("fileStores", stores);
  }

  /** What get_running_processes answers: largest resident memory first. */
  public JsonObject runningProcesses(String nameFilter, int limit) {
    String needle = nameFilter == null ? null : nameFilter.toLowerCase(Locale.ROOT);
    long totalMem = hardware.getMemory().getTotal();
    int cores = hardware.getProcessor().getLogicalProcessorCount();
    List<OSProcess> procs = os.getProcesses(
      p -> needle == null || p.getName().toLowerCase(Locale.ROOT).contains(needle),
      Comparator.comparingLong(OSProcess::getResidentMemory).reversed(), limit);
    JsonArray list = new JsonArray();
    for (OSProcess p : procs) {
      list.add(new JsonObject().put("pid", p.getProcessID()).put("name", p.getName())
        .put("cpuPercent", round(100.0 * p.getProcessCpuLoadCumulative() / Math.max(1, cores)))
        .put("memoryPercent", totalMem == 0 ? 0 : round(100.0 * p.getResidentMemory() / totalMem))
        .put("memoryMb", p.getResidentMemory() / MB));
    }
    return new JsonObject().put("processes", list).put("count", list.size());
  }

  private static double round(double v) {
    return Math.round(v * 10) / 10.0;
  }
}
