package io.fleetbus.shared.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import org.junit.jupiter.api.Test;

/** The diff an approver (hub preview) and a dry run (node file tools) show: the format of {@code diff -u}. */
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
  void closeChangesShareOneHunk() {
    String diff = UnifiedDiff.of("f", "f", "1\n2\n3\n4\n5\n6\n7\n8\n9\n", "1\n2\n3\n4\nfive\n6\n7\n8\n9\nten\n");
    assertTrue(diff.contains("@@ -2,8 +2,9 @@"), diff);
    assertTrue(diff.contains("-5\n+five\n"), diff);
    assertTrue(diff.endsWith("+ten\n"), diff);
    assertEquals("--- f\n+++ f\n@@ -0,0 +1 @@\n+new\n", UnifiedDiff.of("f", "f", "", "new\n"));
  }
}
