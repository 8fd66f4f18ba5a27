package io.fleetbus.bench.floor;

import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardOpenOption;

/**
 * The disk's part of the durable floor (issue 38), blocking, timed by {@link DurableReplier} on the thread that commits
 * (a measuring fixture's event loop): what one audit commit of one record amounts to below SQLite. In WAL mode with synchronous=FULL a commit writes its page as one WAL
 * frame after the last one — its 24-byte header and its 4 KiB page, two pwrite(2)s as SQLite's walWriteOneFrame makes
 * them — and calls fsync(2) on the WAL (strace of sqlite-jdbc 3.54 on Linux: fsync, not fdatasync); here the same. After a checkpoint SQLite starts the WAL over and writes on top of its old frames, so
 * the file's size no longer changes: the frame here goes over a file of that size made beforehand, one frame after
 * the other at the WAL's own offsets, then {@link FileChannel#force(boolean) force(true)} (fsync). strace -T of both in
 * one JVM, 2,000 of each interleaved (2026-11-28): SQLite's WAL fsync p50 0.202 ms, this one's 0.203 ms; pwrite64
 * 0.017 ms each for both. Close removes the file.
 */
public final class RawFsync implements AutoCloseable {
  /** One WAL frame: its header and one page of the default size. */
  static final int FRAME = 24 + 4096;
  private static final int HEADER = 24;
  /** The WAL's own header, before its first frame: the frames sit at the WAL's offsets (32 + n × 4,120). */
  private static final int WAL_HEADER = 32;
  /** Frames in the file before it starts over: SQLite's WAL checkpoints at 1,000 pages by default. */
  private static final int FRAMES = 1000;

  private final Path file;
  private final FileChannel channel;
  private final ByteBuffer frame = ByteBuffer.allocate(FRAME);
  private final ByteBuffer header = ByteBuffer.allocate(HEADER);
  private final ByteBuffer page = ByteBuffer.allocate(FRAME - HEADER);
  private int at;

  public RawFsync(Path dir) throws IOException {
    Files.createDirectories(dir);
    file = dir.resolve("raw-fsync.bin");
    channel = FileChannel.open(file, StandardOpenOption.CREATE, StandardOpenOption.WRITE,
      StandardOpenOption.TRUNCATE_EXISTING);
    channel.write(ByteBuffer.allocate(WAL_HEADER), 0);
    for (int i = 0; i < FRAMES; i++) {
      channel.write(frame.clear(), offset(i));
    }
    channel.force(true);
  }

  /** Writes and syncs one frame {@code count} times; the nanoseconds each took. */
  public long[] block(int count) throws IOException {
    long[] nanos = new long[count];
    for (int i = 0; i < count; i++) {
      long t0 = System.nanoTime();
      header.clear().putLong(0, t0);
      channel.write(header, offset(at));
      channel.write(page.clear(), offset(at) + HEADER);
      channel.force(true);
      nanos[i] = System.nanoTime() - t0;
      at = (at + 1) % FRAMES;
    }
    return nanos;
  }

  private static long offset(int frameNo) {
    return WAL_HEADER + (long) frameNo * FRAME;
  }

  @Override
  public void close() throws IOException {
    channel.close();
    Files.deleteIfExists(file);
  }
}
