package io.fleetbus.node.tools.system;

import io.vertx.core.json.JsonObject;
import oshi.software.os.OSFileStore;

/**
 * A file system's space as {@code df} reports it (issue 33): used = total − free, where free counts the blocks
 * reserved for root; available = what anyone else may still write; percent in use = used ÷ (used + available), rounded
 * up. Counting total − available as used put the root-reserved blocks into "used" (69 % where df said 23 %).
 *
 * @param total bytes of the file system
 * @param free bytes not in use (reserved blocks included: statvfs f_bfree)
 * @param available bytes an unprivileged user may still write (statvfs f_bavail, df's "Available")
 */
public record DiskSpace(long total, long free, long available) {
  private static final long MB = 1024L * 1024L;

  public static final DiskSpace NONE = new DiskSpace(0, 0, 0);

  public static DiskSpace of(OSFileStore store) {
    return new DiskSpace(store.getTotalSpace(), store.getFreeSpace(), store.getUsableSpace());
  }

  public long used() {
    return Math.max(0, total - free);
  }

  /** df's Use%: used ÷ (used + available), rounded up to a whole percent; 0 for an empty or unknown file system. */
  public long usedPercent() {
    long base = used() + available;
    return base <= 0 ? 0 : (used() * 100 + base - 1) / base;
  }

  public DiskSpace plus(DiskSpace other) {
    return new DiskSpace(total + other.total, free + other.free, available + other.available);
  }

  /**
   * totalMb, usedMb, freeMb (what unprivileged users may still write, as df's Available: the meaning freeMb always
   * had), reservedMb (free blocks only root may use) and usedPercent; used + free + reserved = total.
   */
  public JsonObject toJson() {
    return new JsonObject().put("totalMb", total / MB).put("usedMb", used() / MB).put("freeMb", available / MB)
      .put("reservedMb", Math.max(0, free - available) / MB).put("usedPercent", usedPercent());
  }
}
