package io.fleetbus.node.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assertions.fail;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.fleetbus.node.tools.TestNode;
import io.fleetbus.node.tools.sandbox.PathScope;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;
import java.util.List;
import java.util.Set;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.io.TempDir;

/**
 * Path strings built from the fuzzer's bytes (real fixture names, links that lead out, '..', look-alike
 * characters, raw junk) through the checks every file tool makes: {@link PathScope#existing},
 * {@link PathScope#forCreate} and {@link PathScope#existingEntry}. Each is refused with a 4xx
 * FleetException or names a place whose real location (or its nearest existing parent's) is inside the
 * scope; any other exception is a finding.
 */
@Tag("fuzz")
class PathScopeFuzzTest {
  private static final Set<Integer> REFUSALS = Set.of(400, 403, 404);

  @TempDir
  static Path dir;
  static Path sandbox;
  static Path outside;
  static PathScope unprivileged;
  static PathScope sudo;
  static List<String> names;
  static List<String> prefixes;

  @BeforeAll
  static void fixture() throws IOException {
    Path base = dir.toRealPath();
    sandbox = Files.createDirectories(base.resolve("sandbox"));
    outside = Files.createDirectories(base.resolve("outside"));
    Files.writeString(outside.resolve("secret.txt"), "top secret\n");
    Files.writeString(sandbox.resolve("inside.txt"), "inside\n");
    Files.createDirectories(sandbox.resolve("sub/deeper"));
    Files.writeString(sandbox.resolve("sub/deeper/file.txt"), "deep\n");
    Files.createSymbolicLink(sandbox.resolve("link-out"), outside);
    Files.createSymbolicLink(sandbox.resolve("file-link"), outside.resolve("secret.txt"));
    Files.createSymbolicLink(sandbox.resolve("rel-out"), Path.of("../outside"));
    Files.createSymbolicLink(sandbox.resolve("sub/up-in"), Path.of(".."));
    Files.createSymbolicLink(sandbox.resolve("sub/up-out"), Path.of("../.."));
    Files.createSymbolicLink(sandbox.resolve("link-in"), sandbox.resolve("sub"));
    Files.createSymbolicLink(sandbox.resolve("dangling"), Path.of("/nonexistent-fleetbus-target"));
    Files.createSymbolicLink(sandbox.resolve("dangling-out"), outside.resolve("not-yet"));
    Files.createSymbolicLink(sandbox.resolve("loop1"), sandbox.resolve("loop2"));
    Files.createSymbolicLink(sandbox.resolve("loop2"), sandbox.resolve("loop1"));
    Files.createSymbolicLink(sandbox.resolve("etc-link"), Path.of("/etc"));
    Files.createSymbolicLink(sandbox.resolve("proc-link"), Path.of("/proc/self"));
    Files.createSymbolicLink(outside.resolve("back-in"), sandbox);
    JsonObject deny = new JsonObject().put("paths", new JsonObject().put("deny", new JsonArray().add(outside.toString())));
    unprivileged = PathScope.of(TestNode.settings("unprivileged", base, deny));
    sudo = PathScope.of(TestNode.settings("sudo", base, deny));
    names = List.of("inside.txt", "sub", "deeper", "file.txt", "link-out", "file-link", "rel-out", "up-in", "up-out",
      "link-in", "dangling", "dangling-out", "loop1", "etc-link", "proc-link", "back-in", "secret.txt", "new-file",
      "not-yet", "..", ".", "", "sandbox", "outside", "etc", "passwd", "shadow", "proc", "self", "environ", "\u2025",
      "\uff0e\uff0e", "\u2215", "\u200b", "a\\..", "%2e%2e", "~", "*");
    prefixes = List.of(sandbox.toString(), outside.toString(), base.toString(), "/", "", "/etc", "/proc/self", "/root",
      "/dev", "/tmp", sandbox + "/sub", base + "/sandbox/../outside");
  }

  @FuzzTest(maxDuration = "30s")
  void pathsAreRefusedOrStayInScope(FuzzedDataProvider data) {
    boolean root = data.consumeBoolean();
    PathScope scope = root ? sudo : unprivileged;
    int op = data.consumeInt(0, 2);
    String path = path(data);
    Path accepted;
    try {
      accepted = switch (op) {
        case 0 -> scope.existing("path", path);
        case 1 -> scope.forCreate("path", path);
        default -> scope.existingEntry("path", path);
      };
    } catch (FleetException e) {
      assertTrue(REFUSALS.contains(e.code().code), "refusal with " + e.code() + ": " + e.getMessage());
      assertNotNull(e.getMessage());
      // a refusal may echo the path only when every character in it is visible
      assertFalse(e.getMessage().chars().anyMatch(c -> c < 0x20 || c == 0x7f || Character.getType(c) == Character.FORMAT),
        "an invisible character echoed in: " + e.getMessage());
      return;
    }
    assertNotNull(accepted);
    assertTrue(accepted.isAbsolute(), accepted.toString());
    Path real = op == 2 ? realOf(accepted.getParent()).resolve(accepted.getFileName()) : realOf(accepted);
    if (op == 0) {
      assertEquals(real, accepted, "existing() answers the real path");
    }
    assertInScope(root, real, path);
  }

  private static void assertInScope(boolean root, Path real, String asked) {
    if (real.startsWith(outside)) {
      fail("'" + asked + "' accepted as " + real + ", inside the denied folder");
    }
    if (root) {
      for (String system : PathScope.SYSTEM_PATHS) {
        assertFalse(real.startsWith(system), "'" + asked + "' reached the system folder " + real);
      }
    } else {
      assertTrue(real.startsWith(sandbox), "'" + asked + "' accepted as " + real + ", outside the sandbox " + sandbox);
    }
  }

  /** The real path of an entry, or of its nearest existing parent with the rest appended. */
  private static Path realOf(Path p) {
    Path existing = p;
    while (existing != null && !Files.exists(existing, LinkOption.NOFOLLOW_LINKS)) {
      existing = existing.getParent();
    }
    try {
      Path real = existing.toRealPath();
      return real.resolve(existing.relativize(p));
    } catch (IOException e) {
      throw new AssertionError("an accepted path does not resolve: " + p, e);
    }
  }

  private static String path(FuzzedDataProvider data) {
    if (data.consumeInt(0, 7) == 0) {
      return data.consumeString(300);
    }
    StringBuilder b = new StringBuilder(data.pickValue(prefixes));
    for (int i = data.consumeInt(0, 6); i > 0; i--) {
      b.append(data.consumeInt(0, 9) == 0 ? data.consumeString(3) : "/");
      b.append(data.consumeBoolean() ? data.pickValue(names) : data.consumeString(12));
    }
    return b.toString();
  }
}
