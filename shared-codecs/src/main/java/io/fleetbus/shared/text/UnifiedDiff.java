package io.fleetbus.shared.text;

import java.util.ArrayList;
import java.util.List;

/**
 * A unified diff (as {@code diff -u} writes it) between two texts, for the person approving a file
 * change (the hub's approval preview and the node's dry runs of write_file / edit_file). Lines are compared with their line ending, so a missing final newline shows. Common head
 * and tail are skipped first; the changed middle is aligned by longest common subsequence, or, when
 * that would be too costly, shown as removed-then-added.
 */
public final class UnifiedDiff {
  private static final int CONTEXT = 3;
  private static final long MAX_CELLS = 4_000_000;

  private UnifiedDiff() {
  }

  private record Op(char kind, String line) {
  }

  public static String of(String fromLabel, String toLabel, String before, String after) {
    List<String> a = lines(before);
    List<String> b = lines(after);
    if (a.equals(b)) {
      return "";
    }
    List<Op> ops = align(a, b);
    StringBuilder out = new StringBuilder("--- ").append(fromLabel).append('\n').append("+++ ").append(toLabel).append('\n');
    int i = 0;
    while (i < ops.size()) {
      if (ops.get(i).kind == ' ') {
        i++;
        continue;
      }
      int start = Math.max(0, i - CONTEXT);
      int end = i;
      int lastChange = i;
      while (end < ops.size() && end - lastChange <= 2 * CONTEXT) {
        if (ops.get(end).kind != ' ') {
          lastChange = end;
        }
        end++;
      }
      end = Math.min(ops.size(), lastChange + CONTEXT + 1);
      hunk(out, ops, start, end);
      i = end;
    }
    return out.toString();
  }

  private static void hunk(StringBuilder out, List<Op> ops, int start, int end) {
    int aLine = 1;
    int bLine = 1;
    for (int k = 0; k < start; k++) {
      aLine += ops.get(k).kind != '+' ? 1 : 0;
      bLine += ops.get(k).kind != '-' ? 1 : 0;
    }
    int aCount = 0;
    int bCount = 0;
    for (int k = start; k < end; k++) {
      aCount += ops.get(k).kind != '+' ? 1 : 0;
      bCount += ops.get(k).kind != '-' ? 1 : 0;
    }
    out.append("@@ -").append(range(aLine, aCount)).append(" +").append(range(bLine, bCount)).append(" @@\n");
    for (int k = start; k < end; k++) {
      String line = ops.get(k).line;
      out.append(ops.get(k).kind);
      if (line.endsWith("\n")) {
        out.append(line);
      } else {
        out.append(line).append("\n\\ No newline at end of file\n");
      }
    }
  }

  private static String range(int first, int count) {
    if (count == 0) {
      return (first - 1) + ",0";
    }
    return count == 1 ? Integer.toString(first) : first + "," + count;
  }

  private static List<Op> align(List<String> a, List<String> b) {
    int head = 0;
    while (head < a.size() && head < b.size() && a.get(head).equals(b.get(head))) {
      head++;
    }
    int tail = 0;
    while (tail < a.size() - head && tail < b.size() - head
      && a.get(a.size() - 1 - tail).equals(b.get(b.size() - 1 - tail))) {
      tail++;
    }
    List<Op> ops = new ArrayList<>();
    for (int k = 0; k < head; k++) {
      ops.add(new Op(' ', a.get(k)));
    }
    middle(a.subList(head, a.size() - tail), b.subList(head, b.size() - tail), ops);
    for (int k = a.size() - tail; k < a.size(); k++) {
      ops.add(new Op(' ', a.get(k)));
    }
    return ops;
  }

  private static void middle(List<String> a, List<String> b, List<Op> ops) {
    int n = a.size();
    int m = b.size();
    if ((long) n * m > MAX_CELLS) {
      a.forEach(l -> ops.add(new Op('-', l)));
      b.forEach(l -> ops.add(new Op('+', l)));
      return;
    }
    int[][] lcs = new int[n + 1][m + 1];
    for (int i = n - 1; i >= 0; i--) {
      for (int j = m - 1; j >= 0; j--) {
        lcs[i][j] = a.get(i).equals(b.get(j)) ? lcs[i + 1][j + 1] + 1 : Math.max(lcs[i + 1][j], lcs[i][j + 1]);
      }
    }
    int i = 0;
    int j = 0;
    while (i < n || j < m) {
      if (i < n && j < m && a.get(i).equals(b.get(j))) {
        ops.add(new Op(' ', a.get(i++)));
        j++;
      } else if (i < n && (j == m || lcs[i + 1][j] >= lcs[i][j + 1])) {
        ops.add(new Op('-', a.get(i++)));
      } else {
        ops.add(new Op('+', b.get(j++)));
      }
    }
  }

  /** Lines with their newline kept; the last has none when the text does not end with one. */
  static List<String> lines(String text) {
    List<String> out = new ArrayList<>();
    if (text == null || text.isEmpty()) {
      return out;
    }
    int from = 0;
    for (int k = text.indexOf('\n'); k >= 0; k = text.indexOf('\n', from)) {
      out.add(text.substring(from, k + 1));
      from = k + 1;
    }
    if (from < text.length()) {
      out.add(text.substring(from));
    }
    return out;
  }
}
