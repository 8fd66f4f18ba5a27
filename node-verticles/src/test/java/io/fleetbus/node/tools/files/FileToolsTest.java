package io.fleetbus.node.tools.files;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;
import static org.junit.jupiter.api.Assumptions.assumeTrue;

import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.tools.TestNode;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.command.HostCommands;
import io.fleetbus.node.tools.command.ProcessRunner;
import io.fleetbus.node.tools.sandbox.PathScope;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;
import java.util.stream.IntStream;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/** The file tools on real files in a temp folder, as a root-tier node (the sandbox has its own suite). */
@Timeout(60)
class FileToolsTest {
  @TempDir
  Path dir;
  NodeSettings settings;
  Map<String, ToolHandler> tools;
  Path work;

  @BeforeEach
  void setUp() throws Exception {
    settings = TestNode.settings("root", dir, null);
    HostCommands host = new HostCommands(true, new ProcessRunner(50 * 1024));
    tools = FileTools.handlers(PathScope.of(settings), host);
    work = Files.createDirectories(dir.resolve("work"));
  }

  private JsonObject call(String tool, JsonObject args) throws Exception {
    return TestNode.run(tools.get(tool), tool, args, settings);
  }

  private FleetException refused(String tool, JsonObject args) {
    return assertThrows(FleetException.class, () -> call(tool, args));
  }

  @Test
  void listDirectoryShowsKindsSizesAndLinksAsLinks() throws Exception {
    Files.writeString(work.resolve("b.txt"), "12345");
    Files.createDirectory(work.resolve("a-dir"));
    Files.createSymbolicLink(work.resolve("c-link"), Path.of("/etc"));
    JsonArray entries = call("list_directory", new JsonObject().put("path", work.toString())).getJsonArray("entries");
    assertEquals(List.of("a-dir", "b.txt", "c-link"), entries.stream().map(e -> ((JsonObject) e).getString("name")).toList());
    assertEquals("directory", entries.getJsonObject(0).getString("type"));
    assertEquals(5, entries.getJsonObject(1).getLong("size"));
    assertEquals("symlink", entries.getJsonObject(2).getString("type"));
    JsonObject limited = call("list_directory", new JsonObject().put("path", work.toString()).put("limit", 1));
    assertTrue(limited.getBoolean("truncated"));
    assertEquals(3, limited.getInteger("total"));
  }

  @Test
  void readFilePagesTextByLines() throws Exception {
    Path f = work.resolve("lines.txt");
    Files.writeString(f, IntStream.rangeClosed(1, 10).mapToObj(i -> "line " + i).collect(Collectors.joining("\n")) + "\n");
    JsonObject r = call("read_file", new JsonObject().put("path", f.toString()).put("offset", 2).put("limit", 3));
    assertEquals("line 3\nline 4\nline 5\n", r.getString("content"));
    assertEquals("utf-8", r.getString("encoding"));
    assertTrue(r.getBoolean("truncated"));
    assertEquals(5, r.getInteger("next_offset"));
    JsonObject all = call("read_file", new JsonObject().put("path", f.toString()));
    assertFalse(all.getBoolean("truncated"));
    assertEquals(10, all.getInteger("lines"));
  }

  @Test
  void readFileCapsTextAt100KB() throws Exception {
    Path f = work.resolve("big.log");
    Files.writeString(f, ("x".repeat(99) + "\n").repeat(3000)); // 300 KB
    JsonObject r = call("read_file", new JsonObject().put("path", f.toString()).put("limit", 100000));
    assertTrue(r.getString("content").length() <= ReadFileTool.TEXT_CAP_BYTES);
    assertTrue(r.getBoolean("truncated"));
    assertEquals(300_000, r.getLong("size_bytes"));
  }

  @Test
  void readFileSendsBinaryAsBase64WithItsSize() throws Exception {
    byte[] bytes = {(byte) 0x89, 'P', 'N', 'G', 0, 1, 2, (byte) 0xff};
    Path f = work.resolve("img.png");
    Files.write(f, bytes);
    JsonObject r = call("read_file", new JsonObject().put("path", f.toString()));
    assertEquals("base64", r.getString("encoding"));
    assertEquals(8, r.getLong("size_bytes"));
    assertTrue(java.util.Arrays.equals(bytes, Base64.getDecoder().decode(r.getString("content"))));
  }

  @Test
  void readFileRefusesFoldersAndFifos() throws Exception {
    assertEquals(FailureCode.BAD_REQUEST, refused("read_file", new JsonObject().put("path", work.toString())).code());
    Path fifo = work.resolve("pipe");
    assumeTrue(new ProcessBuilder("mkfifo", fifo.toString()).start().waitFor() == 0);
    assertEquals(FailureCode.BAD_REQUEST, refused("read_file", new JsonObject().put("path", fifo.toString())).code());
    assertEquals(FailureCode.NOT_FOUND, refused("read_file", new JsonObject().put("path", work + "/nope")).code());
  }

  @Test
  void globFindsFilesSkipsVcsAndStopsAt500() throws Exception {
    Files.createDirectories(work.resolve("src/deep"));
    Files.createDirectories(work.resolve(".git"));
    Files.writeString(work.resolve("top.java"), "");
    Files.writeString(work.resolve("src/deep/A.java"), "");
    Files.writeString(work.resolve("src/B.txt"), "");
    Files.writeString(work.resolve(".git/C.java"), "");
    JsonArray files = call("glob_files", new JsonObject().put("path", work.toString()).put("pattern", "**/*.java"))
      .getJsonArray("files");
    assertEquals(List.of(work.resolve("src/deep/A.java").toString(), work.resolve("top.java").toString()), files.getList());
    Path many = Files.createDirectories(work.resolve("many"));
    for (int i = 0; i < 510; i++) {
      Files.writeString(many.resolve("f" + i + ".txt"), "");
    }
    JsonObject r = call("glob_files", new JsonObject().put("path", many.toString()).put("pattern", "*.txt"));
    assertEquals(500, r.getJsonArray("files").size());
    assertTrue(r.getBoolean("truncated"));
  }

  @Test
  void grepFindsMatchesPagesThemAndSkipsBinaries() throws Exception {
    Files.writeString(work.resolve("a.txt"), "alpha\nneedle one\nbeta\nneedle two\n");
    Files.writeString(work.resolve("b.txt"), "needle three\n");
    Files.write(work.resolve("c.bin"), new byte[] {'n', 'e', 'e', 'd', 'l', 'e', 0, 1});
    JsonObject r = call("grep_files", new JsonObject().put("path", work.toString()).put("pattern", "needle \\w+"));
    assertEquals(3, r.getInteger("count"), r.encodePrettily());
    assertEquals(work.resolve("a.txt") + ":2:needle one", r.getString("output").split("\n")[0]);
    JsonObject page = call("grep_files", new JsonObject().put("path", work.toString()).put("pattern", "needle")
      .put("offset", 1).put("head_limit", 1));
    assertEquals(1, page.getInteger("count"));
    assertEquals(4, page.getJsonArray("matches").getJsonObject(0).getLong("line"));
    assertTrue(page.getBoolean("truncated"));
    JsonObject onlyB = call("grep_files", new JsonObject().put("path", work.toString()).put("pattern", "NEEDLE")
      .put("case_insensitive", true).put("glob", "b.*"));
    assertEquals(1, onlyB.getInteger("count"));
    assertEquals(FailureCode.BAD_REQUEST, refused("grep_files", new JsonObject().put("path", work.toString())
      .put("pattern", "(unclosed")).code());
  }

  @Test
  void grepEnginesAnswerAlike() throws Exception {
    HostCommands withRg = new HostCommands(true, new ProcessRunner(1024));
    assumeTrue(withRg.find("rg").isPresent(), "ripgrep not installed here");
    Files.createDirectories(work.resolve("b"));
    Files.createDirectories(work.resolve(".git"));
    Files.writeString(work.resolve("b.txt"), "x hit\n");
    Files.writeString(work.resolve("b/inner.txt"), "hit inner\nno\nhit again\n");
    Files.writeString(work.resolve(".hidden"), "hidden hit\n");
    Files.writeString(work.resolve(".git/config"), "vcs hit\n");
    Files.createSymbolicLink(work.resolve("link.txt"), work.resolve("b.txt"));
    JsonObject args = new JsonObject().put("path", work.toString()).put("pattern", "hit");
    JsonObject rg = TestNode.run(new GrepFilesTool(PathScope.of(settings), withRg), "grep_files", args, settings);
    JsonObject java = TestNode.run(new GrepFilesTool(PathScope.of(settings), new HostCommands(false, null)),
      "grep_files", args, settings);
    assertEquals("rg", rg.getString("engine"));
    assertEquals("java", java.getString("engine"));
    assertEquals(java.getJsonArray("matches"), rg.getJsonArray("matches"));
    assertEquals(4, rg.getInteger("count"), rg.encodePrettily());
  }

  @Test
  void writeFileCreatesParentsAndReplacesAtomically() throws Exception {
    Path f = work.resolve("new/deeper/file.txt");
    JsonObject r = call("write_file", new JsonObject().put("path", f.toString()).put("content", "hello\n"));
    assertTrue(r.getBoolean("created"));
    assertEquals("hello\n", Files.readString(f));
    call("write_file", new JsonObject().put("path", f.toString()).put("content", "bye\n"));
    assertEquals("bye\n", Files.readString(f));
    try (var s = Files.list(f.getParent())) {
      assertEquals(1, s.count(), "no temp file left behind");
    }
  }

  /** A file write_file makes gets the process's usual mode (umask), an existing one keeps its own (issue 33). */
  @Test
  void writeFileGivesSaneModes() throws Exception {
    Path plain = Files.createFile(work.resolve("made-plainly"));
    Path made = work.resolve("made-by-the-tool.txt");
    call("write_file", new JsonObject().put("path", made.toString()).put("content", "new\n"));
    assertEquals(Files.getPosixFilePermissions(plain), Files.getPosixFilePermissions(made), "as any new file");
    Path kept = work.resolve("group-writable.txt");
    Files.writeString(kept, "a\n");
    Files.setPosixFilePermissions(kept, java.nio.file.attribute.PosixFilePermissions.fromString("rw-rw-r--"));
    call("write_file", new JsonObject().put("path", kept.toString()).put("content", "b\n"));
    call("edit_file", new JsonObject().put("path", kept.toString()).put("target_content", "b")
      .put("replacement_content", "c"));
    assertEquals("c\n", Files.readString(kept));
    assertEquals("rw-rw-r--", java.nio.file.attribute.PosixFilePermissions.toString(Files.getPosixFilePermissions(kept)));
  }

  @Test
  void writeFileDryRunShowsTheDiffAndWritesNothing() throws Exception {
    Path f = work.resolve("conf.txt");
    Files.writeString(f, "a\nb\nc\n");
    JsonObject r = call("write_file", new JsonObject().put("path", f.toString()).put("content", "a\nB\nc\n").put("dry_run", true));
    assertEquals("a\nb\nc\n", Files.readString(f));
    assertTrue(r.getString("diff").contains("-b\n+B\n"), r.getString("diff"));
  }

  @Test
  void editNeedsExactlyOneMatch() throws Exception {
    Path f = work.resolve("e.txt");
    Files.writeString(f, "one two two three");
    FleetException none = refused("edit_file", new JsonObject().put("path", f.toString()).put("target_content", "four")
      .put("replacement_content", "x"));
    assertEquals(FailureCode.CONFLICT, none.code());
    assertTrue(none.getMessage().contains("occurs 0 times"), none.getMessage());
    FleetException two = refused("edit_file", new JsonObject().put("path", f.toString()).put("target_content", "two")
      .put("replacement_content", "x"));
    assertTrue(two.getMessage().contains("occurs 2 times"), two.getMessage());
    assertEquals("one two two three", Files.readString(f));
    call("edit_file", new JsonObject().put("path", f.toString()).put("target_content", "three").put("replacement_content", "3"));
    assertEquals("one two two 3", Files.readString(f));
  }

  @Test
  void multiEditIsAllOrNothing() throws Exception {
    Path f = work.resolve("m.txt");
    Files.writeString(f, "alpha beta gamma");
    JsonArray edits = new JsonArray()
      .add(new JsonObject().put("target_content", "alpha").put("replacement_content", "ALPHA"))
      .add(new JsonObject().put("target_content", "ALPHA beta").put("replacement_content", "AB"))
      .add(new JsonObject().put("target_content", "missing").put("replacement_content", "x"));
    FleetException e = refused("multi_edit", new JsonObject().put("path", f.toString()).put("edits", edits));
    assertEquals(FailureCode.CONFLICT, e.code());
    assertTrue(e.getMessage().startsWith("edit 3 of 3"), e.getMessage());
    assertEquals("alpha beta gamma", Files.readString(f));
    edits.remove(2);
    JsonObject r = call("multi_edit", new JsonObject().put("path", f.toString()).put("edits", edits));
    assertEquals(2, r.getInteger("applied"));
    assertEquals("AB gamma", Files.readString(f));
  }

  @Test
  void editRefusesBinaryFiles() throws Exception {
    Path f = work.resolve("bin");
    Files.write(f, new byte[] {(byte) 0xff, (byte) 0xfe, 'x'});
    assertEquals(FailureCode.BAD_REQUEST, refused("edit_file", new JsonObject().put("path", f.toString())
      .put("target_content", "x").put("replacement_content", "y")).code());
  }

  @Test
  void createDirIsIdempotentAndRefusesAFileInTheWay() throws Exception {
    Path d = work.resolve("x/y/z");
    assertTrue(call("create_dir", new JsonObject().put("path", d.toString())).getBoolean("created"));
    assertFalse(call("create_dir", new JsonObject().put("path", d.toString())).getBoolean("created"));
    Files.writeString(work.resolve("plain"), "");
    assertEquals(FailureCode.CONFLICT, refused("create_dir", new JsonObject().put("path", work + "/plain")).code());
  }

  @Test
  void deleteNeedsRecursiveForNonEmptyFoldersAndRemovesLinksNotTargets() throws Exception {
    Path d = Files.createDirectories(work.resolve("full/inner"));
    Files.writeString(d.resolve("f"), "x");
    Path kept = Files.writeString(work.resolve("kept.txt"), "keep me");
    Files.createSymbolicLink(work.resolve("full/link"), kept);
    assertEquals(FailureCode.CONFLICT, refused("delete_path", new JsonObject().put("path", work + "/full")).code());
    assertTrue(Files.exists(d.resolve("f")));
    JsonObject r = call("delete_path", new JsonObject().put("path", work + "/full").put("recursive", true));
    assertEquals(4, r.getLong("entries_removed")); // full, inner, f, link
    assertFalse(Files.exists(work.resolve("full")));
    assertEquals("keep me", Files.readString(kept));
    Path link = Files.createSymbolicLink(work.resolve("l2"), kept);
    assertEquals("symlink", call("delete_path", new JsonObject().put("path", link.toString())).getString("deleted"));
    assertTrue(Files.exists(kept));
  }

  @Test
  void deleteRefusesTheScopeRoot() throws Exception {
    assertEquals(FailureCode.FORBIDDEN, refused("delete_path", new JsonObject().put("path", "/").put("recursive", true)).code());
  }
}
