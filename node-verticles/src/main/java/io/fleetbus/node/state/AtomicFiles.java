package io.fleetbus.node.state;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFilePermissions;

/**
 * The node's state files: each write goes to a temporary file in the same folder, is forced to
 * disk, then moved over the old one in one step, so a crash leaves either the old or the new
 * content and never half of either.
 */
public final class AtomicFiles {
  private static final String TEMP_SUFFIX = ".part";

  private AtomicFiles() {
  }

  public static void writeJson(Path file, JsonObject content) throws IOException {
    write(file, content.encodePrettily().getBytes(StandardCharsets.UTF_8));
  }

  public static void write(Path file, byte[] content) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path temp = Files.createTempFile(dir, file.getFileName().toString() + ".", TEMP_SUFFIX);
    try {
      try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
        ByteBuffer buf = ByteBuffer.wrap(content);
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        ch.force(true);
      }
      Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  /** Creates {@code dir} if needed and, where the file system has owners, keeps others out (configs may hold secrets). */
  public static Path privateDir(Path dir) throws IOException {
    Files.createDirectories(dir);
    try {
      Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
    } catch (UnsupportedOperationException e) {
      // not a POSIX file system (Windows): the folder keeps the permissions it inherits
    }
    return dir;
  }

  /** The JSON object in {@code file}, or null when there is none. */
  public static JsonObject readJson(Path file) throws IOException {
    if (!Files.isRegularFile(file)) {
      return null;
    }
    String text = Files.readString(file, StandardCharsets.UTF_8);
    try {
      return new JsonObject(text);
    } catch (DecodeException e) {
      throw new IOException(file + " is not valid JSON (" + e.getMessage() + "); move it aside to start afresh", e);
    }
  }

  /** Removes temporary files a crash left behind in {@code dir}. */
  public static void removeLeftovers(Path dir) throws IOException {
    if (!Files.isDirectory(dir)) {
      return;
    }
    try (DirectoryStream<Path> parts = Files.newDirectoryStream(dir, "*" + TEMP_SUFFIX)) {
      for (Path p : parts) {
        Files.deleteIfExists(p);
      }
    }
  }
}
