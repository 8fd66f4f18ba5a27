package io.fleetbus.testsupport;

import java.io.IOException;
import java.io.OutputStream;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * A small tmpfs mounted on a test's folder, to fill it to ENOSPC or make it read-only (issue 34: a full or read-only
 * data folder). Mounting needs root (CAP_SYS_ADMIN): {@link #mount} answers why not, for the test to skip with it.
 */
public final class Tmpfs {
  private Tmpfs() {
  }

  /** Mounts a tmpfs of {@code size} ({@code 4m}, {@code 256k}) on {@code dir}; null when done, else why not. */
  public static String mount(Path dir, String size) throws IOException, InterruptedException {
    return run("mount", "-t", "tmpfs", "-o", "size=" + size + ",mode=0700", "tmpfs", dir.toString());
  }

  /** Remounts it read-only; null when done, else why not. */
  public static String readOnly(Path dir) throws IOException, InterruptedException {
    return run("mount", "-o", "remount,ro", dir.toString());
  }

  /** Remounts it read-write; null when done, else why not. */
  public static String readWrite(Path dir) throws IOException, InterruptedException {
    return run("mount", "-o", "remount,rw", dir.toString());
  }

  /** Unmounts it (lazily if something still holds it open). */
  public static void unmount(Path dir) throws IOException, InterruptedException {
    if (run("umount", dir.toString()) != null) {
      run("umount", "-l", dir.toString());
    }
  }

  /** Writes {@code file} until its file system says it is full; answers how many bytes went in. */
  public static long fill(Path file) throws IOException {
    byte[] chunk = new byte[4096];
    long written = 0;
    try (OutputStream out = Files.newOutputStream(file)) {
      while (true) {
        out.write(chunk);
        written += chunk.length;
      }
    } catch (IOException full) {
      if (!String.valueOf(full.getMessage()).contains("No space left")) {
        throw full;
      }
    }
    return written;
  }

  /** Runs a command; null when it succeeded, else what it said. */
  private static String run(String... command) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8).strip();
    return p.waitFor() == 0 ? null : String.join(" ", command) + ": exit " + p.exitValue() + " " + out;
  }
}
