package io.fleetbus.docs;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * The README and the documents beside it name only what exists (issue 33): every relative link resolves (file, and
 * heading when it names one), every repository path, script or command they name in backticks is there, and every
 * test or class they cite as evidence exists. The README stays short. One JVM, no network, well under a second.
 */
class DocsLinksTest {
  private static final Path CHECKOUT = Path.of("..").toAbsolutePath().normalize();
  private static final int README_MAX_LINES = 300;

  private List<String> javaFiles;

  @Test
  void everyLinkAndNamedPathResolves() throws IOException {
    List<String> problems = new ArrayList<>();
    for (Path doc : documents()) {
      problems.addAll(DocChecks.check(CHECKOUT, doc, this::javaFileExists));
    }
    assertEquals(List.of(), problems, "the docs name things that do not exist");
  }

  @Test
  void readmeStaysShort() throws IOException {
    long lines = Files.readAllLines(CHECKOUT.resolve("README.md")).size();
    assertTrue(lines <= README_MAX_LINES, "README.md has " + lines + " lines; at most " + README_MAX_LINES
      + " (what it is, the commands, the request path, Try it, a map of docs/): move the rest into docs/");
  }

  @Test
  void aBrokenLinkIsFound() throws IOException {
    Path dir = Files.createTempDirectory("docs-links");
    try {
      Files.createDirectories(dir.resolve("docs"));
      Files.createDirectories(dir.resolve("scripts"));
      Files.writeString(dir.resolve("scripts/tool.sh"), "");
      Files.writeString(dir.resolve("docs/a.md"), "# A\n\n## Where it is\n");
      Path readme = dir.resolve("README.md");
      Files.writeString(readme, String.join("\n", "# R", "[ok](docs/a.md#where-it-is) `scripts/tool.sh --x`",
        "[gone](docs/b.md) [no heading](docs/a.md#nowhere) `scripts/gone.sh` `conf/nothing.json`",
        "`NoSuchClassTest`", ""));
      List<String> problems = DocChecks.check(dir, readme, name -> false);
      assertEquals(5, problems.size(), String.join("\n", problems));
      assertTrue(problems.get(0).contains("docs/b.md"), problems.get(0));
      assertTrue(problems.get(1).contains("#nowhere"), problems.get(1));
    } finally {
      try (Stream<Path> files = Files.walk(dir)) {
        files.sorted((a, b) -> b.getNameCount() - a.getNameCount()).forEach(p -> p.toFile().delete());
      }
    }
  }

  /** README.md, every docs/*.md and bench/HISTORY.md. */
  private static List<Path> documents() throws IOException {
    List<Path> docs = new ArrayList<>(List.of(CHECKOUT.resolve("README.md"), CHECKOUT.resolve("bench/HISTORY.md")));
    try (Stream<Path> files = Files.list(CHECKOUT.resolve("docs"))) {
      files.filter(p -> p.toString().endsWith(".md")).sorted().forEach(docs::add);
    }
    return docs;
  }

  /** Whether a {@code .java} file under a module's src/ ends with {@code /<name>.java} (name: a class, or a/b/Class). */
  private boolean javaFileExists(String name) {
    if (javaFiles == null) {
      javaFiles = allJavaFiles();
    }
    String suffix = "/" + name + ".java";
    return javaFiles.stream().anyMatch(f -> f.endsWith(suffix));
  }

  private static List<String> allJavaFiles() {
    List<String> found = new ArrayList<>();
    try (Stream<Path> modules = Files.list(CHECKOUT)) {
      for (Path src : modules.map(m -> m.resolve("src")).filter(Files::isDirectory).toList()) {
        try (Stream<Path> all = Files.walk(src)) {
          all.map(p -> p.toString().replace('\\', '/')).filter(f -> f.endsWith(".java")).forEach(found::add);
        }
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return found;
  }
}
