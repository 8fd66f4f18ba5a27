package io.fleetbus.node.confine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.tools.command.ProcessRunner;
import io.fleetbus.shared.files.PrivateMarker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Folders that hold excluded ones are usable when the launcher hides the excluded folders ({@link MountHiding}): a
 * checkout whose {@code data/} holds the hub's and the node's folders can be listed and written by a confined command
 * (so {@code ls}, {@code touch} and {@code git status} at its root work), the hidden folders show up empty, and
 * nothing can carry a hidden folder out of its place. Without hiding (a node that cannot mount) the same folder cannot
 * be listed at all. {@code ls /} works on a sudo node whose scope is {@code /}. Real kernel, real processes.
 */
@Timeout(120)
class HiddenFoldersTest {
  static final java.util.Set<String> ALLOWLIST = java.util.Set.of("bash", "cat", "ls", "touch", "mv", "rmdir", "git",
    "grep", "mkdir");

  @TempDir
  static Path dir;
  static Path checkout;
  static NodeSettings sudo;

  @BeforeAll
  static void fixture() throws Exception {
    checkout = dir.resolve("checkout");
    Path node = checkout.resolve("data/node");
    Path hub = checkout.resolve("data/hub");
    FileGrantAttackTest.write(checkout.resolve("README.md"), "readme");
    FileGrantAttackTest.write(checkout.resolve("src/Main.java"), "class Main {}");
    FileGrantAttackTest.write(checkout.resolve(".gitignore"), "data/");
    FileGrantAttackTest.write(node.resolve("trust/NAME-credential.json"), "SECRET-credential");
    FileGrantAttackTest.write(hub.resolve("keys/NAME-jwt.pem"), "SECRET-hub-key");
    PrivateMarker.mark(node, "node data folder");
    PrivateMarker.mark(hub, "hub data folder");
    for (String line : List.of("git init -q", "git add .", "git -c user.name=a -c user.email=a@b commit -qm one")) {
      assertEquals(0, new ProcessBuilder("bash", "-c", line).directory(checkout.toFile()).start().waitFor(), line);
    }
    sudo = node(new JsonArray().add(dir.toString()));
  }

  static NodeSettings node(JsonArray allow) {
    return FileGrantAttackTest.node("sudo", new JsonObject().put("allow", allow), checkout.resolve("data/node"),
      dir.resolve("sandbox"), ALLOWLIST);
  }

  static JsonObject run(Confinement c, String script) throws Exception {
    return new ProcessRunner(64 * 1024, c.spawner(() -> ALLOWLIST)).run(List.of("bash", "-c", script), checkout, 10_000);
  }

  @Test
  void aHolderIsListedAndWrittenWhileItsHiddenFoldersShowEmpty() throws Exception {
    assumeTrue(Landlock.abi() > 0 && MountHiding.available(), "needs Landlock and a node that may mount (root)");
    Confinement c = Confinement.of(sudo);
    assertTrue(c.toJson().getBoolean("hidesFolders"), c.toJson().encode());
    JsonObject ls = run(c, "ls -a " + checkout + " && ls -a " + checkout + "/data/hub " + checkout + "/data/node");
    assertEquals(0, ls.getInteger("exitCode"), ls.encode());
    String out = ls.getString("stdout");
    assertTrue(out.contains("README.md") && out.contains("src") && out.contains("data"), out);
    assertFalse(out.contains("keys") || out.contains("trust") || out.contains("NAME-"), out);
    JsonObject write = run(c, "touch new.txt && echo hi > new.txt && cat new.txt && mkdir made && git status --short");
    assertEquals(0, write.getInteger("exitCode"), write.encode());
    assertTrue(write.getString("stdout").startsWith("hi\n"), write.encode());
    assertTrue(write.getString("stderr").isEmpty(), "git status says nothing on stderr: " + write.encode());
    JsonObject secrets = run(c, "cat data/hub/keys/NAME-jwt.pem data/node/trust/NAME-credential.json; grep -r SECRET .");
    assertFalse(secrets.getString("stdout").contains("SECRET-"), secrets.encode());
    // the node's own threads keep the real view
    assertTrue(Files.exists(checkout.resolve("data/hub/keys/NAME-jwt.pem")));
  }

  /** A hidden folder is hidden at its place: moving a folder that holds it (or it) would show it elsewhere. */
  @Test
  void noHiddenFolderCanBeCarriedOutOfItsPlace() throws Exception {
    assumeTrue(Landlock.abi() > 0 && MountHiding.available(), "needs Landlock and a node that may mount (root)");
    Confinement c = Confinement.of(sudo);
    for (String move : List.of("mv data moved", "mv data/hub hub2", "mv data/node/trust t", "rmdir data/hub",
      "mkdir -p x && mv data x/")) {
      JsonObject r = run(c, move);
      assertNotEquals(0, r.getInteger("exitCode"), move + " → " + r.encode());
      assertTrue(Files.exists(checkout.resolve("data/hub/keys/NAME-jwt.pem")), move);
      assertTrue(Files.exists(checkout.resolve("data/node/trust/NAME-credential.json")), move);
    }
    JsonObject unconfined = new ProcessRunner(64 * 1024).run(List.of("bash", "-c", "mv data moved && mv moved data"),
      checkout, 10_000);
    assertEquals(0, unconfined.getInteger("exitCode"), "the same move works outside the launcher: " + unconfined);
  }

  /** Without hiding, the holder gets no rights at all (its listing would list the excluded folders' contents too). */
  @Test
  void withoutHidingTheHolderCannotBeListed() throws Exception {
    assumeTrue(Landlock.abi() > 0, "needs Landlock");
    JsonObject r = run(Confinement.of(sudo).hiding(false), "ls " + checkout);
    assertNotEquals(0, r.getInteger("exitCode"), r.encode());
  }

  /** A sudo node whose scope is "/": ls / works; /root (a system folder, not read by any view) shows empty. */
  @Test
  void lsOfTheRootWorksOnASudoNodeAndRootsHomeShowsEmpty() throws Exception {
    assumeTrue(Landlock.abi() > 0 && MountHiding.available(), "needs Landlock and a node that may mount (root)");
    NodeSettings everything = node(new JsonArray().add("/"));
    Confinement c = Confinement.of(everything);
    JsonObject r = run(c, "ls / && ls /etc >/dev/null && echo ROOT: && ls -A /root");
    assertEquals(0, r.getInteger("exitCode"), r.encode());
    assertTrue(r.getString("stdout").contains("usr"), r.encode());
    assertTrue(r.getString("stdout").endsWith("ROOT:\n"), "/root shows empty: " + r.encode());
    JsonObject shadow = run(c, "cat /etc/shadow");
    assertNotEquals(0, shadow.getInteger("exitCode"), shadow.encode());
    assertNotEquals(0, run(c.hiding(false), "ls /").getInteger("exitCode"), "without hiding / is not listable");
  }
}
