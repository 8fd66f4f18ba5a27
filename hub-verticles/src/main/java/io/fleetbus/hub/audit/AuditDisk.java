package io.fleetbus.hub.audit;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.file.FileStore;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * The disk under the hub's data folder as the audit writer sees it (issue 34): whether an audit entry can be written
 * there now, and why not. "No" when the file system holds less than {@code minFreeBytes} for the hub, is mounted
 * read-only, or a test write fails. A reserve file of {@code reserveBytes} is kept there and given back when an audit
 * write finds the disk full, so the entries of calls already running when it filled still have room; the audit counts as
 * writable again only once the reserve is back in place with {@code minFreeBytes} to spare. Blocking (file system
 * calls): the audit verticle calls it from its ordered blocking tasks only.
 */
final class AuditDisk {
  static final String RESERVE = "audit-reserve";
  private static final String PROBE = ".audit-write-probe";

  private final Path dir;
  private final long minFreeBytes;
  private final long reserveBytes;
  private FileStore store;

  AuditDisk(Path dir, long minFreeBytes, long reserveBytes) {
    this.dir = dir.toAbsolutePath();
    this.minFreeBytes = minFreeBytes;
    this.reserveBytes = reserveBytes;
  }

  /**
   * Null when an entry can be written now, else what stops it ("no space left on /var/lib/fleetbus (…)").
   *
   * @param recovering true while the audit is unavailable: the bar is then the reserve plus {@code minFreeBytes}, and
   *                   a real write is tried as well (a full or read-only disk can look fine to statvfs)
   */
  String problem(boolean recovering) {
    try {
      if (store == null) {
        store = Files.getFileStore(dir);
      }
      if (Files.getFileStore(dir).isReadOnly()) {
        return "the hub's data folder " + dir + " is on a read-only file system";
      }
      long usable = store.getUsableSpace();
      long reserveMissing = Files.exists(dir.resolve(RESERVE)) ? 0 : reserveBytes;
      long needed = minFreeBytes + (recovering ? reserveMissing : 0);
      if (usable < needed) {
        return noSpace(usable, needed);
      }
      if (recovering) {
        writeProbe();
      }
      return null;
    } catch (IOException e) {
      return "the hub's data folder " + dir + " cannot be written: " + e.getMessage();
    }
  }

  /** The cause of a failed audit write, as a person can act on it: the disk's state when it explains the failure. */
  String cause(Throwable writeFailure) {
    String disk = problem(true);
    if (disk != null) {
      return disk;
    }
    String msg = String.valueOf(writeFailure.getMessage());
    return msg.contains("SQLITE_FULL") || msg.contains("disk is full") ? noSpace(-1, minFreeBytes)
      : "the audit database could not be written: " + msg;
  }

  private String noSpace(long usable, long needed) {
    return "no space left on " + dir + " (" + (usable < 0 ? "the disk was full" : usable / 1024 + " KiB free") + " of the "
      + needed / 1024 + " KiB the audit needs: audit.minFreeMb " + mib(minFreeBytes)
      + (needed > minFreeBytes ? " plus its reserve, audit.reserveMb " + mib(reserveBytes) : "")
      + "; the hub resumes by itself once there is)";
  }

  private static String mib(long bytes) {
    return bytes % (1024 * 1024) == 0 ? Long.toString(bytes / (1024 * 1024))
      : String.format(java.util.Locale.ROOT, "%.2f", bytes / 1048576.0);
  }

  /** Gives the reserve back to the file system (a write found the disk full): entries of calls already running fit. */
  boolean releaseReserve() throws IOException {
    return Files.deleteIfExists(dir.resolve(RESERVE));
  }

  /** Puts the reserve (back) in place: real blocks, written, not a sparse file that would hold nothing. */
  void keepReserve() throws IOException {
    Path reserve = dir.resolve(RESERVE);
    if (reserveBytes == 0) {
      Files.deleteIfExists(reserve); // audit.reserveMb set to 0 since: none is kept
      return;
    }
    if (Files.exists(reserve) && Files.size(reserve) == reserveBytes) {
      return;
    }
    byte[] block = new byte[64 * 1024];
    try (RandomAccessFile f = new RandomAccessFile(reserve.toFile(), "rw")) {
      for (long at = 0; at < reserveBytes; at += block.length) {
        f.write(block, 0, (int) Math.min(block.length, reserveBytes - at));
      }
      f.setLength(reserveBytes); // a larger one from an earlier audit.reserveMb shrinks
      // not synced: the blocks are the file system's as soon as written, and a reserve lost in a crash is made again
    } catch (IOException e) {
      Files.deleteIfExists(reserve);
      throw e;
    }
  }

  /** A small file written, flushed and removed: what statvfs cannot tell (quotas, a broken disk). */
  private void writeProbe() throws IOException {
    Path probe = dir.resolve(PROBE);
    try (RandomAccessFile f = new RandomAccessFile(probe.toFile(), "rw")) {
      f.write(new byte[4096]);
      f.getFD().sync();
    } finally {
      Files.deleteIfExists(probe);
    }
  }
}
