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
 * the other, then {@link FileChannel#force(boolean) force(true)} (fsync). Close removes the file.
 */
public final class RawFsync implements AutoCloseable {
  /** One WAL frame: its header and one page of the default size. */
  static final int FRAME = 24 + 4096;
  private static final int HEADER = 24;
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
    for (int i = 0; i < FRAMES; i++) {
      channel.write(frame.clear(), (long) i * FRAME);
    }
    channel.force(true);
  }

  /** Writes and syncs one frame {@code count} times; the nanoseconds each took. */
  public long[] block(int count) throws IOException {
    long[] nanos = new long[count];
    for (int i = 0; i < count; i++) {
      long t0 = System.nanoTime();
      header.clear().putLong(0, t0);
      channel.write(header, (long) at * FRAME);
      channel.write(page.clear(), (long) at * FRAME + HEADER);
      channel.force(true);
      nanos[i] = System.nanoTime() - t0;
      at = (at + 1) % FRAMES;
    }
    return nanos;
  }

  @Override
  public void close() throws IOException {
    channel.close();
    Files.deleteIfExists(file);
  }
}
