package io.fleetbus.hub.approval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

/** The diff an approver reads: the format of {@code diff -u}, and edits applied the way the file tools apply them. */
class UnifiedDiffTest {

  @Test
  void oneChangedLineWithContext() {
    String before = "a\nb\nc\nd\ne\nf\ng\nh\n";
    String after = "a\nb\nc\nd\nE\nf\ng\nh\n";
    assertEquals("""
      --- a/x
      +++ b/x
      @@ -2,7 +2,7 @@
       b
       c
       d
      -e
      +E
       f
       g
       h
      """, UnifiedDiff.of("a/x", "b/x", before, after));
  }

  @Test
  void farApartChangesMakeTwoHunksAndNewFilesStartAtZero() {
    StringBuilder a = new StringBuilder();
    for (int i = 1; i <= 20; i++) {
      a.append(i).append('\n');
    }
    String b = a.toString().replace("2\n", "two\n").replace("19\n", "nineteen\n");
    String diff = UnifiedDiff.of("a/n", "b/n", a.toString(), b);
    assertTrue(diff.contains("@@ -1,5 +1,5 @@\n 1\n-2\n+two\n"), diff);
    assertTrue(diff.contains("@@ -16,5 +16,5 @@\n 16\n 17\n 18\n-19\n+nineteen\n 20\n"), diff);
    assertEquals("--- a/new\n+++ b/new\n@@ -0,0 +1,2 @@\n+hello\n+world\n", UnifiedDiff.of("a/new", "b/new", "", "hello\nworld\n"));
    assertEquals("", UnifiedDiff.of("a", "b", "same\n", "same\n"));
  }

  @Test
  void aMissingFinalNewlineShows() {
    assertEquals("--- a\n+++ b\n@@ -1 +1 @@\n-x\n\\ No newline at end of file\n+x\n", UnifiedDiff.of("a", "b", "x", "x\n"));
  }

  @Test
  void editsMustMatchExactlyOnceAndMultiEditAppliesInOrder() {
    String file = "host = db1\nport = 5432\n";
    JsonObject edit = new JsonObject().put("path", "/etc/app.conf").put("target_content", "db1").put("replacement_content", "db2");
    assertEquals("host = db2\nport = 5432\n", FileChangePreview.apply("edit_file", edit, file));
    JsonObject claude = new JsonObject().put("old_string", "5432").put("new_string", "6432");
    assertEquals("host = db1\nport = 6432\n", FileChangePreview.apply("edit_file", claude, file));
    JsonObject multi = new JsonObject().put("edits", new JsonArray()
      .add(new JsonObject().put("target_content", "db1").put("replacement_content", "db9"))
      .add(new JsonObject().put("target_content", "db9").put("replacement_content", "db10")));
    assertEquals("host = db10\nport = 5432\n", FileChangePreview.apply("multi_edit", multi, file));

    String twice = FileChangePreview.render("edit_file", new JsonObject().put("target_content", " = ")
      .put("replacement_content", "="), "/etc/app.conf", new FileChangePreview.Current(file, null));
    assertTrue(twice.contains("the edit would fail: edit 1: the text to replace occurs more than once"), twice);
    String missing = FileChangePreview.render("edit_file", new JsonObject().put("target_content", "nope")
      .put("replacement_content", "x"), "/etc/app.conf", new FileChangePreview.Current(file, null));
    assertTrue(missing.contains("does not occur"), missing);
  }

  @Test
  void summaryShowsTheDiffAgainstTheCurrentFileOrSaysWhyNot() {
    String shown = FileChangePreview.render("write_file", new JsonObject().put("content", "a\nB\n"), "/tmp/f",
      new FileChangePreview.Current("a\nb\n", null));
    assertEquals("--- a//tmp/f\n+++ b//tmp/f\n@@ -1,2 +1,2 @@\n a\n-b\n+B\n", shown);
    String fresh = FileChangePreview.render("write_file", new JsonObject().put("content", "new\n"), "/tmp/g",
      new FileChangePreview.Current("", "the file does not exist yet"));
    assertTrue(fresh.startsWith("(the file does not exist yet)\n--- a//tmp/g\n+++ b//tmp/g\n@@ -0,0 +1 @@\n+new\n"), fresh);
    String unknown = FileChangePreview.render("edit_file", new JsonObject().put("target_content", "x = 1")
      .put("replacement_content", "x = 2"), "/tmp/h", new FileChangePreview.Current(null, "read_file is not in this hub's catalogue"));
    assertTrue(unknown.contains("(read_file is not in this hub's catalogue)") && unknown.contains("-x = 1\n+x = 2\n"), unknown);
  }

  @Test
  void readFileAnswersBecomeCurrentContent() {
    var ok = io.fleetbus.shared.msg.ToolResult.ok("c", "n1", new JsonObject().put("content", "abc"), 1);
    assertEquals("abc", FileChangePreview.fromReadResult(ok).text());
    var missing = io.fleetbus.shared.msg.ToolResult.error("c", "n1", io.fleetbus.shared.bus.FailureCode.NOT_FOUND, "no file", 1);
    assertEquals("", FileChangePreview.fromReadResult(missing).text());
    var binary = io.fleetbus.shared.msg.ToolResult.ok("c", "n1", new JsonObject().put("content", "AAEC").put("encoding", "base64"), 1);
    assertEquals(null, FileChangePreview.fromReadResult(binary).text());
  }
}
