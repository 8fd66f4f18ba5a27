package io.fleetbus.node.tools.files;

import java.util.ArrayList;
import java.util.List;

/**
 * A unified diff of two texts (3 lines of context), so a person approving a write sees what changes.
 * Longest-common-subsequence on lines; for very large inputs only a summary, to stay cheap.
 */
final class UnifiedDiff {
  private static final int CONTEXT = 3;
  private static final long MAX_CELLS = 4_000_000;

  private UnifiedDiff() {
  }

  static String of(String path, String before, String after) {
    String[] a = lines(before);
    String[] b = lines(after);
    if ((long) a.length * b.length > MAX_CELLS) {
      return "--- " + path + "\n+++ " + path + "\n(" + a.length + " lines before, " + b.length
        + " lines after: too large for a line diff)\n";
    }
    List<int[]> ops = script(a, b);
    StringBuilder out = new StringBuilder("--- " + path + "\n+++ " + path + "\n");
    int i = 0;
    while (i < ops.size()) {
      if (ops.get(i)[0] == ' ') {
        i++;
        continue;
      }
      int start = Math.max(0, i - CONTEXT);
      int end = i;
      // extend the hunk while changes are closer than two contexts apart
      int lastChange = i;
      while (end < ops.size() && (ops.get(end)[0] != ' ' || end - lastChange <= 2 * CONTEXT)) {
        if (ops.get(end)[0] != ' ') {
          lastChange = end;
        }
        end++;
      }
      end = Math.min(ops.size(), lastChange + CONTEXT + 1);
      hunk(out, ops, start, end, a, b);
      i = end;
    }
    return out.toString();
  }

  /** One entry per line: {kind, indexA, indexB} the kind is a diff marker character. */
  private static List<int[]> script(String[] a, String[] b) {
    int[][] lcs = new int[a.length + 1][b.length + 1];
    for (int x = a.length - 1; x >= 0; x--) {
      for (int y = b.length - 1; y >= 0; y--) {
        lcs[x][y] = a[x].equals(b[y]) ? lcs[x + 1][y + 1] + 1 : Math.max(lcs[x + 1][y], lcs[x][y + 1]);
      }
    }
    List<int[]> ops = new ArrayList<>();
    int x = 0;
    int y = 0;
    while (x < a.length || y < b.length) {
      if (x < a.length && y < b.length && a[x].equals(b[y])) {
        ops.add(new int[] {' ', x++, y++});
      } else if (x < a.length && (y == b.length || lcs[x + 1][y] >= lcs[x][y + 1])) {
        ops.add(new int[] {'-', x++, y});
      } else {
        ops.add(new int[] {'+', x, y++});
      }
    }
    return ops;
  }

  private static void hunk(StringBuilder out, List<int[]> ops, int from, int to, String[] a, String[] b) {
    int aStart = ops.get(from)[1];
    int bStart = ops.get(from)[2];
    int aCount = 0;
    int bCount = 0;
    StringBuilder body = new StringBuilder();
    for (int k = from; k < to; k++) {
      int[] op = ops.get(k);
      switch (op[0]) {
        case ' ' -> {
          body.append(' ').append(a[op[1]]).append('\n');
          aCount++;
          bCount++;
        }
        case '-' -> {
          body.append('-').append(a[op[1]]).append('\n');
          aCount++;
        }
        default -> {
          body.append('+').append(b[op[2]]).append('\n');
          bCount++;
        }
      }
    }
    out.append("@@ -").append(aCount == 0 ? aStart : aStart + 1).append(',').append(aCount)
      .append(" +").append(bCount == 0 ? bStart : bStart + 1).append(',').append(bCount).append(" @@\n").append(body);
  }

  private static String[] lines(String s) {
    if (s == null || s.isEmpty()) {
      return new String[0];
    }
    String body = s.endsWith("\n") ? s.substring(0, s.length() - 1) : s;
    return body.split("\n", -1);
  }
}
