package io.fleetbus.node.tools.files;

import io.fleetbus.node.tools.sandbox.PathScope;
import io.fleetbus.shared.bus.FailureCode;
import java.io.IOException;
import java.nio.channels.FileChannel;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.nio.file.StandardCopyOption;
import java.nio.file.StandardOpenOption;
import java.nio.file.attribute.PosixFileAttributeView;

/**
 * Replaces a file's content all at once: the bytes go to a temporary file beside it, are flushed to
 * disk, and the temporary file is renamed over the target. A crash leaves the old file or the new
 * one, never half of either. The rename replaces a symbolic link rather than writing through it.
 */
final class AtomicWrite {
  private AtomicWrite() {
  }

  /** Creates missing parents and checks they still lie where the scope check said they would. */
  static void ensureParent(PathScope scope, Path target) throws IOException {
    Path parent = target.getParent();
    Files.createDirectories(parent);
    Path real = parent.toRealPath();
    if (!real.equals(parent) || !scope.allows(real)) {
      // a link appeared between the check and the creation: do not write anywhere it might lead
      throw FailureCode.FORBIDDEN.exception("the folder of '" + target + "' changed while writing (a symbolic link"
        + " appeared); nothing was written");
    }
  }

  static void write(Path target, byte[] content) throws IOException {
    Path tmp = Files.createTempFile(target.getParent(), "." + target.getFileName() + ".", ".fleetbus-tmp");
    try {
      try (FileChannel ch = FileChannel.open(tmp, StandardOpenOption.WRITE, StandardOpenOption.TRUNCATE_EXISTING)) {
        java.nio.ByteBuffer buf = java.nio.ByteBuffer.wrap(content);
        while (buf.hasRemaining()) {
          ch.write(buf);
        }
        ch.force(true);
      }
      keepPermissions(target, tmp);
      Files.move(tmp, target, StandardCopyOption.ATOMIC_MOVE, StandardCopyOption.REPLACE_EXISTING);
    } finally {
      Files.deleteIfExists(tmp);
    }
  }

  private static void keepPermissions(Path target, Path tmp) throws IOException {
    if (Files.isRegularFile(target, LinkOption.NOFOLLOW_LINKS)) {
      PosixFileAttributeView from = Files.getFileAttributeView(target, PosixFileAttributeView.class, LinkOption.NOFOLLOW_LINKS);
      PosixFileAttributeView to = Files.getFileAttributeView(tmp, PosixFileAttributeView.class);
      if (from != null && to != null) {
        to.setPermissions(from.readAttributes().permissions());
      }
    }
  }
}
