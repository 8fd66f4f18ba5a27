package io.fleetbus.shared.files;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.ByteBuffer;
import java.nio.channels.FileChannel;
import java.nio.charset.StandardCharsets;
import java.nio.file.DirectoryStream;
import java.nio.file.FileAlreadyExistsException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.FileAttribute;
import java.nio.file.attribute.PosixFileAttributeView;
import java.nio.file.attribute.PosixFileAttributes;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.SecureRandom;

/**
 * The one way fleetbus replaces a file (state files, keys and tokens, files a tool writes): the bytes go
 * to a temporary file beside the target, are forced to disk, and the temporary file is moved over the
 * target in one step. A crash leaves the old content or the new, never half of either; the move
 * replaces a symbolic link rather than writing through it. Blocking: worker threads only.
 */
public final class AtomicFiles {
  private static final String TEMP_SUFFIX = ".part";
  private static final String OWNER_ONLY_FILE = "rw-------";
  private static final SecureRandom NAMES = new SecureRandom();

  private AtomicFiles() {
  }

  /**
   * Replaces {@code file}'s content, keeping the mode (and, where this process may, the owner and group) an existing
   * regular file had; a new file gets the mode the process's umask gives any new file (0644 under umask 022).
   */
  public static void write(Path file, byte[] content) throws IOException {
    replace(file, content, false);
  }

  public static void writeJson(Path file, JsonObject content) throws IOException {
    write(file, content.encodePrettily().getBytes(StandardCharsets.UTF_8));
  }

  /** Replaces {@code file} with content only its owner may read (keys, tokens): never a moment world-readable. */
  public static void writePrivate(Path file, byte[] content) throws IOException {
    replace(file, content, true);
  }

  public static void writePrivate(Path file, String content) throws IOException {
    writePrivate(file, content.getBytes(StandardCharsets.UTF_8));
  }

  /** Creates {@code dir} (and parents) and, where the file system has owners, keeps others out. */
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

  private static void replace(Path file, byte[] content, boolean ownerOnly) throws IOException {
    Path dir = file.toAbsolutePath().getParent();
    Files.createDirectories(dir);
    Path temp = createTemp(dir, "." + file.getFileName() + ".", ownerOnly);
    try {
      try (FileChannel ch = FileChannel.open(temp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
        ByteBuffer buf = ByteBuffer.wrap(content);
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        ch.force(true);
      }
      if (!ownerOnly) {
        keepPermissions(file, temp);
      }
      Files.move(temp, file, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(temp);
    }
  }

  private static Path createTemp(Path dir, String prefix, boolean ownerOnly) throws IOException {
    if (!ownerOnly) {
      return createPlain(dir, prefix);
    }
    try {
      FileAttribute<?> owner = PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString(OWNER_ONLY_FILE));
      return Files.createTempFile(dir, prefix, TEMP_SUFFIX, owner);
    } catch (UnsupportedOperationException e) {
      return Files.createTempFile(dir, prefix, TEMP_SUFFIX); // not POSIX: the folder's own ACLs guard it
    }
  }

  /**
   * A new temporary file with the mode any new file of this process gets (0666 less the umask, as a shell's {@code >}
   * gives): Files.createTempFile would make it owner-only, and so every file a tool created (issue 33). O_EXCL: an
   * existing name, a symbolic link included, is never opened; another random name is tried.
   */
  private static Path createPlain(Path dir, String prefix) throws IOException {
    for (int attempt = 1; ; attempt++) {
      Path temp = dir.resolve(prefix + Long.toUnsignedString(NAMES.nextLong(), 36) + TEMP_SUFFIX);
      try {
        return Files.createFile(temp);
      } catch (FileAlreadyExistsException e) {
        if (attempt == 100) {
          throw e;
        }
      }
    }
  }

  /** An existing regular file's owner, group and mode go to its replacement (the owner where this process may). */
  private static void keepPermissions(Path target, Path temp) throws IOException {
    if (Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) {
      PosixFileAttributeView from = Files.getFileAttributeView(target, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
      PosixFileAttributeView to = Files.getFileAttributeView(temp, PosixFileAttributeView.class);
      if (from != null && to != null) {
        PosixFileAttributes was = from.readAttributes();
        keepOwner(to, was);
        to.setPermissions(was.permissions());
      }
    }
  }

  /** Root replacing another user's file gives it back to them; anyone else keeps what the file system allows. */
  private static void keepOwner(PosixFileAttributeView to, PosixFileAttributes was) {
    try {
      PosixFileAttributes now = to.readAttributes();
      if (!now.owner().equals(was.owner())) {
        to.setOwner(was.owner());
      }
      if (!now.group().equals(was.group())) {
        to.setGroup(was.group());
      }
    } catch (IOException e) {
      // not permitted (not root, not in the group): the replacement stays this process's, with the old mode
    }
  }
}
