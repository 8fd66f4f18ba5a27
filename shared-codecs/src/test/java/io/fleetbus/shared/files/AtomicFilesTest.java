package io.fleetbus.shared.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class AtomicFilesTest {
  @TempDir
  Path dir;

  @Test
  void replacesContentKeepsPermissionsAndLeavesNoTemporaryFile() throws IOException {
    Path file = dir.resolve("sub/app.conf");
    AtomicFiles.write(file, "one\n".getBytes(StandardCharsets.UTF_8));
    Files.setPosixFilePermissions(file, PosixFilePermissions.fromString("rwxr-x---"));
    AtomicFiles.write(file, "two\n".getBytes(StandardCharsets.UTF_8));
    assertEquals("two\n", Files.readString(file));
    assertEquals("rwxr-x---", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    try (Stream<Path> left = Files.list(file.getParent())) {
      assertEquals(1, left.count(), "only the file itself remains");
    }
  }

  /**
   * A new file gets the mode any new file of this process gets (0666 less the umask: 0644 under umask 022), not an
   * owner-only one (issue 33: files write_file created were readable by root only, Files.createTempFile's 0600).
   */
  @Test
  void aNewFileGetsTheModeTheUmaskGivesLikeAnyNewFile() throws IOException {
    Path plain = Files.createFile(dir.resolve("made-plainly"));
    Path file = dir.resolve("made-atomically");
    AtomicFiles.write(file, "x\n".getBytes(StandardCharsets.UTF_8));
    assertEquals(PosixFilePermissions.toString(Files.getPosixFilePermissions(plain)),
      PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
  }

  @Test
  void privateFilesAndFoldersAreOwnerOnly() throws IOException {
    Path keys = AtomicFiles.privateDir(dir.resolve("keys"));
    Path token = keys.resolve("token");
    Files.writeString(token, "old");
    Files.setPosixFilePermissions(token, PosixFilePermissions.fromString("rw-r--r--"));
    AtomicFiles.writePrivate(token, "fbe_secret\n");
    assertEquals("fbe_secret\n", Files.readString(token));
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(token)));
    assertEquals("rwx------", PosixFilePermissions.toString(Files.getPosixFilePermissions(keys)));
  }

  @Test
  void jsonRoundTripsAndBadJsonSaysWhatToDo() throws IOException {
    Path file = dir.resolve("state.json");
    assertNull(AtomicFiles.readJson(file));
    AtomicFiles.writeJson(file, new JsonObject().put("a", 1));
    assertEquals(new JsonObject().put("a", 1), AtomicFiles.readJson(file));
    Files.writeString(file, "{nope");
    IOException bad = assertThrows(IOException.class, () -> AtomicFiles.readJson(file));
    assertTrue(bad.getMessage().contains("move it aside"), bad.getMessage());
  }

  @Test
  void leftoversOfACrashAreRemoved() throws IOException {
    Path leftover = Files.createFile(dir.resolve(".job.json.123.part"));
    Path kept = Files.createFile(dir.resolve("job.json"));
    AtomicFiles.removeLeftovers(dir);
    assertFalse(Files.exists(leftover));
    assertTrue(Files.exists(kept));
  }
}
