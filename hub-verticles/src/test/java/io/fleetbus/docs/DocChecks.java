package io.fleetbus.docs;

import java.io.IOException;
import java.nio.file.FileSystems;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.PathMatcher;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.List;
import java.util.Locale;
import java.util.Set;
import java.util.function.Predicate;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;

/**
 * What {@link DocsLinksTest} checks in one Markdown file: relative links (file and heading), repository paths in
 * backticks (inline, and in bash blocks), and the tests and classes the text cites. Pragmatic on purpose: a path counts
 * when it starts with a top-level folder or file of the repository; placeholders ({@code <id>}, {@code …}, {@code $X})
 * and what a build or a run makes ({@code target/}, {@code data/}, {@code bench/work/}) are not checked.
 */
final class DocChecks {
  static final List<String> TOP_LEVEL = List.of(".ci/", "api-tests/", "bench/", "bench-harness/", "clients/", "conf/",
    "dashboard-tests/", "docs/", "hub-verticles/", "node-verticles/", "scripts/", "shared-codecs/", "test-support/",
    "cluster.xml", "pom.xml", "README.md");
  private static final Pattern LINK = Pattern.compile("\\[[^\\]]*\\]\\(([^)\\s]+)\\)");
  private static final Pattern CODE_SPAN = Pattern.compile("`([^`]+)`");
  private static final Pattern HEADING = Pattern.compile("^#{1,6}\\s+(.*?)\\s*#*\\s*$");
  private static final Pattern ANCHOR = Pattern.compile("<a id=\"([^\"]+)\">");
  private static final Pattern TEST_NAME = Pattern.compile("^([A-Z][A-Za-z0-9]*Test)(\\.[A-Za-z0-9_]+)?$");
  private static final Pattern CLASS_PATH = Pattern.compile("^((?:[a-z]+/)+[A-Z][A-Za-z0-9]*)(\\.[A-Za-z0-9_]+)?$");

  private DocChecks() {}

  /** Every problem in {@code doc}, one line each naming the file, the line and what is missing. */
  static List<String> check(Path root, Path doc, Predicate<String> javaFileExists) throws IOException {
    List<String> problems = new ArrayList<>();
    List<String> lines = Files.readAllLines(doc);
    String where = root.relativize(doc).toString();
    boolean fenced = false;
    boolean bash = false;
    for (int i = 0; i < lines.size(); i++) {
      String line = lines.get(i);
      String at = where + ":" + (i + 1) + ": ";
      if (line.stripLeading().startsWith("```")) {
        fenced = !fenced;
        bash = fenced && line.strip().equals("```bash");
        continue;
      }
      if (fenced) {
        if (bash) {
          checkTokens(root, line, at, problems);
        }
        continue;
      }
      checkLinks(root, doc, line, at, problems);
      Matcher span = CODE_SPAN.matcher(line);
      while (span.find()) {
        checkTokens(root, span.group(1), at, problems);
        checkCited(span.group(1), at, javaFileExists, problems);
      }
    }
    return problems;
  }

  private static void checkLinks(Path root, Path doc, String line, String at, List<String> problems)
    throws IOException {
    Matcher link = LINK.matcher(CODE_SPAN.matcher(line).replaceAll(""));
    while (link.find()) {
      String target = link.group(1);
      if (target.matches("^[a-z]+:.*")) {
        continue; // http:, https:, mailto:
      }
      int hash = target.indexOf('#');
      String file = hash >= 0 ? target.substring(0, hash) : target;
      Path resolved = file.isEmpty() ? doc : doc.getParent().resolve(file).normalize();
      if (!resolved.startsWith(root) || !Files.exists(resolved)) {
        problems.add(at + "link to " + target + ": no such file");
      } else if (hash >= 0 && Files.isRegularFile(resolved)
        && !anchors(resolved).contains(target.substring(hash + 1))) {
        problems.add(at + "link to " + target + ": no heading #" + target.substring(hash + 1) + " in " + file);
      }
    }
  }

  /** Every repository path among the words of {@code text} exists (a glob: something matches it). */
  private static void checkTokens(Path root, String text, String at, List<String> problems) {
    for (String word : text.split("[\\s=\"'(),;|]+")) {
      String token = word.replaceAll("[.:]+$", "");
      if (!isRepoPath(token)) {
        continue;
      }
      if (!exists(root, token)) {
        problems.add(at + "`" + token + "`: no such file or folder");
      }
    }
  }

  private static boolean isRepoPath(String token) {
    if (token.matches(".*[<>…{}$].*") || token.contains("/target/") || token.startsWith("bench/work")) {
      return false;
    }
    return TOP_LEVEL.stream().anyMatch(top -> top.endsWith("/") ? token.startsWith(top) : token.equals(top));
  }

  private static boolean exists(Path root, String token) {
    int star = token.indexOf('*');
    if (star < 0) {
      return Files.exists(root.resolve(token));
    }
    int slash = token.lastIndexOf('/');
    if (slash < 0 || slash > star) {
      return true; // a glob over folders: not checked
    }
    Path dir = root.resolve(token.substring(0, slash));
    PathMatcher glob = FileSystems.getDefault().getPathMatcher("glob:" + token.substring(slash + 1));
    try (Stream<Path> files = Files.list(dir)) {
      return files.anyMatch(f -> glob.matches(f.getFileName()));
    } catch (IOException e) {
      return false;
    }
  }

  /** A test the text cites ({@code FooTest}, {@code FooTest.method}) or a class by path ({@code hub/authz/Access}). */
  private static void checkCited(String span, String at, Predicate<String> javaFileExists, List<String> problems) {
    Matcher test = TEST_NAME.matcher(span);
    Matcher cls = CLASS_PATH.matcher(span);
    String name = test.matches() ? test.group(1) : cls.matches() ? cls.group(1) : null;
    if (name != null && !javaFileExists.test(name)) {
      problems.add(at + "`" + span + "`: no " + name + ".java in any module");
    }
  }

  /** The anchors GitHub makes for a file's headings (duplicates get -1, -2 …), and explicit {@code <a id>}s. */
  static Set<String> anchors(Path file) throws IOException {
    Set<String> anchors = new HashSet<>();
    boolean fenced = false;
    for (String line : Files.readAllLines(file)) {
      if (line.stripLeading().startsWith("```")) {
        fenced = !fenced;
      }
      Matcher heading = HEADING.matcher(line);
      if (!fenced && heading.matches()) {
        String slug = slug(heading.group(1));
        String unique = slug;
        for (int n = 1; anchors.contains(unique); n++) {
          unique = slug + "-" + n;
        }
        anchors.add(unique);
      }
      Matcher anchor = ANCHOR.matcher(line);
      while (anchor.find()) {
        anchors.add(anchor.group(1));
      }
    }
    return anchors;
  }

  /** GitHub's heading anchor: lower case, only letters, marks, digits, '_', '-' and spaces kept, spaces to '-'. */
  static String slug(String heading) {
    return heading.toLowerCase(Locale.ROOT).replaceAll("[^\\p{L}\\p{M}\\p{N}\\p{Pc} -]", "").replace(' ', '-');
  }
}
