package io.fleetbus.node.tools.logs;

import java.io.IOException;
import java.io.RandomAccessFile;
import java.nio.charset.StandardCharsets;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;

/** The last lines of a file, read backwards in blocks so a huge log costs only its tail. */
public final class LogTail {
  private static final int BLOCK = 64 * 1024;
  /** Never scan more than this much of a file's end, however short its lines. */
  static final long MAX_SCAN_BYTES = 16L * 1024 * 1024;

  private LogTail() {
  }

  public static List<String> last(Path file, int lines) throws IOException {
    try (RandomAccessFile raf = new RandomAccessFile(file.toFile(), "r")) {
      long end = raf.length();
      long pos = end;
      int newlines = 0;
      long stop = Math.max(0, end - MAX_SCAN_BYTES);
      // a trailing newline ends the last line; it does not start an empty one
      if (end > 0) {
        raf.seek(end - 1);
        if (raf.read() == '\n') {
          end--;
          pos = end;
        }
      }
      byte[] buf = new byte[BLOCK];
      long start = stop;
      outer:
      while (pos > stop) {
        int n = (int) Math.min(BLOCK, pos - stop);
        pos -= n;
        raf.seek(pos);
        raf.readFully(buf, 0, n);
        for (int i = n - 1; i >= 0; i--) {
          if (buf[i] == '\n' && ++newlines == lines) {
            start = pos + i + 1;
            break outer;
          }
        }
      }
      int len = (int) (end - start);
      byte[] tail = new byte[Math.max(0, len)];
      raf.seek(start);
      raf.readFully(tail);
      if (tail.length == 0) {
        return List.of();
      }
      List<String> out = new ArrayList<>();
      Collections.addAll(out, new String(tail, StandardCharsets.UTF_8).split("\n", -1));
      out.replaceAll(l -> l.endsWith("\r") ? l.substring(0, l.length() - 1) : l);
      return out.size() > lines ? out.subList(out.size() - lines, out.size()) : out;
    }
  }
}
