package io.fleetbus.node.tools.files;

import io.fleetbus.node.tools.sandbox.PathScope;
import java.io.BufferedReader;
import java.io.IOException;
import java.io.InputStream;
import java.io.InputStreamReader;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;

/** The built-in search: the same walk and skips as ripgrep's defaults we use (binary files, VCS, links). */
final class JavaGrep {
  private static final int SNIFF_BYTES = 8192;

  private JavaGrep() {
  }

  record Result(List<GrepMatch> matches, String stoppedBecause) {
  }

  static Result search(PathScope scope, GrepQuery q, long budgetMs) throws IOException {
    List<GrepMatch> found = new ArrayList<>();
    FileWalk.Outcome outcome = new FileWalk(scope, budgetMs).walk(q.root(), (file, attrs) -> {
      if (q.nameMatches(file) && !binary(file)) {
        scan(file, q, found);
      }
      return found.size() < q.wanted();
    });
    String stopped = outcome.stoppedBecause();
    return new Result(found, "enough results".equals(stopped) ? null : stopped);
  }

  private static boolean binary(Path file) {
    try (InputStream in = Files.newInputStream(file)) {
      for (byte b : in.readNBytes(SNIFF_BYTES)) {
        if (b == 0) {
          return true;
        }
      }
      return false;
    } catch (IOException e) {
      return true; // unreadable: skip like a binary
    }
  }

  private static void scan(Path file, GrepQuery q, List<GrepMatch> found) {
    try (BufferedReader r = new BufferedReader(new InputStreamReader(Files.newInputStream(file), StandardCharsets.UTF_8))) {
      long n = 0;
      for (String line; (line = r.readLine()) != null && found.size() < q.wanted(); ) {
        n++;
        if (q.pattern().matcher(line).find()) {
          found.add(GrepMatch.of(file.toString(), n, line));
        }
      }
    } catch (IOException | java.io.UncheckedIOException e) {
      // vanished or unreadable while we looked: rg skips such files too
    }
  }
}
