package io.fleetbus.hub.approval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

/** The preview an approver reads: edits applied the way the file tools apply them, and the diff against the current file. */
class FileChangePreviewTest {

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
