package io.fleetbus.shared.trust;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.attribute.PosixFilePermissions;

/** Files and folders only their owner may read (keys, tokens, credentials). Blocking: workers only. */
public final class PrivateFiles {
  private PrivateFiles() {
  }

  /** Creates the folder (and parents) and makes it owner-only where the file system knows POSIX permissions. */
  public static Path folder(Path dir) throws IOException {
    Files.createDirectories(dir);
    try {
      Files.setPosixFilePermissions(dir, PosixFilePermissions.fromString("rwx------"));
    } catch (UnsupportedOperationException e) {
      // not a POSIX file system: rely on the folder's own ACLs
    }
    return dir;
  }

  /** Writes atomically a file readable only by its owner: never a moment with the content world-readable. */
  public static void write(Path file, String content) throws IOException {
    write(file, content.getBytes(StandardCharsets.UTF_8));
  }

  public static void write(Path file, byte[] content) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.deleteIfExists(tmp);
    try {
      Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } catch (UnsupportedOperationException e) {
      Files.createFile(tmp);
    }
    Files.write(tmp, content);
    Files.move(tmp, file, StandardCopyOption.REPLACE_EXISTING, StandardCopyOption.ATOMIC_MOVE);
  }
}
