package io.fleetbus.build;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.HashSet;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/**
 * Every test class of every module is in the tier that what it does calls for (CONTRIBUTING.md "Test tiers"), so a
 * new test lands in the right one: a class that starts JVMs or a fleet, itself or through a helper of its test tree,
 * carries {@code @Tag("cluster")}; a Jazzer {@code @FuzzTest} class carries {@code @Tag("fuzz")}; every other class no
 * tier tag at all (it runs in the fast tier, {@code scripts/test.sh --fast}). Read from the sources, comments left out.
 */
class TestTiersTest {
  static final String CLUSTER = "cluster";
  static final String FUZZ = "fuzz";
  /** What starts a JVM or a fleet from a test, in its code: the test-support launcher or the bench's. */
  private static final Pattern SPAWNS = Pattern.compile("\\b(?:FleetProcess|JvmLauncher)\\b");
  /** ... or in a string literal: a JVM on this classpath, or a script that starts hubs and nodes. */
  private static final Pattern SPAWNS_LITERAL =
    Pattern.compile("java\\.class\\.path|(?:[\\w./]*/)?(?:run|start-hub|start-node|bench)\\.sh");
  private static final Pattern TEST_METHOD =
    Pattern.compile("@(?:Test|ParameterizedTest|RepeatedTest|TestFactory|FuzzTest)\\b");
  private static final Pattern TAG = Pattern.compile("@Tag\\(\"([^\"]*)\"\\)");
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();

  @Test
  void everyTestClassOfTheTreeIsInItsTier() {
    Map<String, List<String>> misfiled = new LinkedHashMap<>();
    int classes = 0;
    for (Path module : modules()) {
      Map<String, String> sources = sources(module.resolve("src/test/java"));
      classes += sources.size();
      misfiled(sources).forEach(m -> misfiled.computeIfAbsent(ROOT.relativize(module).toString(),
        k -> new ArrayList<>()).add(m));
    }
    assertTrue(classes > 100, "read only " + classes + " test sources under " + ROOT);
    assertEquals(Map.of(), misfiled, "test classes in the wrong tier (CONTRIBUTING.md, \"Test tiers\")");
  }

  @Test
  void aClassThatStartsAFleetThroughAHelperWithoutItsTagIsCaught() {
    Map<String, String> tree = Map.of(
      "Fleet", "final class Fleet { void start() { FleetProcess.start(\"hub\", \"io.fleetbus.hub.HubMain\", env, log); } }",
      "NewClusterTest", "class NewClusterTest { @Test void joins() { try (var f = new Fleet()) { } } }",
      "TaggedTest", "@Tag(\"cluster\") class TaggedTest { @Test void joins() { new Fleet(); } }",
      "PlainTest", "/** unlike FleetProcess, nothing is started */ class PlainTest { @Test void adds() { } }",
      "WronglyTaggedTest", "@Tag(\"cluster\") class WronglyTaggedTest { @Test void adds() { } }",
      "ParserFuzzTest", "class ParserFuzzTest { @FuzzTest void parses(byte[] in) { } }");
    assertEquals(List.of(
        "NewClusterTest: tagged [], should be [cluster]",
        "ParserFuzzTest: tagged [], should be [fuzz]",
        "WronglyTaggedTest: tagged [cluster], should be []"),
      misfiled(new java.util.TreeMap<>(tree)));
  }

  /** A source read as code (comments and string literals left out) and the contents of its string literals. */
  record Source(String code, List<String> literals) {
  }

  /** One line per test class whose tier tags are not what its source calls for. */
  static List<String> misfiled(Map<String, String> sourcesByClass) {
    Map<String, Source> read = new LinkedHashMap<>();
    sourcesByClass.forEach((name, text) -> read.put(name, read(text)));
    Set<String> spawners = spawners(read);
    List<String> wrong = new ArrayList<>();
    read.forEach((name, source) -> {
      if (!TEST_METHOD.matcher(source.code()).find()) {
        return;
      }
      Set<String> expected = new TreeSet<>();
      if (source.code().contains("@FuzzTest")) {
        expected.add(FUZZ);
      }
      if (spawners.contains(name)) {
        expected.add(CLUSTER);
      }
      Set<String> tagged = classTags(name, source.code());
      if (expected.size() > 1) {
        wrong.add(name + ": both fuzzes and starts JVMs, so it would run in two tiers: split it");
      } else if (!tagged.equals(expected)) {
        wrong.add(name + ": tagged " + tagged + ", should be " + expected);
      }
    });
    return wrong;
  }

  /** The classes that start JVMs themselves, and those that use one that does (a fleet helper), to any depth. */
  private static Set<String> spawners(Map<String, Source> read) {
    Set<String> spawners = new HashSet<>();
    read.forEach((name, source) -> {
      if (SPAWNS.matcher(source.code()).find()
        || source.literals().stream().anyMatch(l -> SPAWNS_LITERAL.matcher(l).matches())) {
        spawners.add(name);
      }
    });
    for (boolean grew = !spawners.isEmpty(); grew; ) {
      Pattern uses = Pattern.compile("\\b(?:" + String.join("|", spawners) + ")\\b");
      grew = false;
      for (Map.Entry<String, Source> e : read.entrySet()) {
        if (!spawners.contains(e.getKey()) && uses.matcher(e.getValue().code()).find()) {
          grew = spawners.add(e.getKey());
        }
      }
    }
    return spawners;
  }

  /** The {@code @Tag}s in front of the class's declaration; one on a method is named as such (it splits the class). */
  private static Set<String> classTags(String name, String code) {
    Matcher decl = Pattern.compile("\\bclass " + name + "\\b").matcher(code);
    int head = decl.find() ? decl.start() : code.length();
    Set<String> tags = new TreeSet<>();
    for (Matcher m = TAG.matcher(code); m.find(); ) {
      tags.add(m.start() < head ? m.group(1) : "on a method: " + m.group(1));
    }
    return tags;
  }

  /** Splits Java source into code without comments or literals (a tag's name stays: it is code) and the literals. */
  static Source read(String text) {
    StringBuilder code = new StringBuilder(text.length());
    List<String> literals = new ArrayList<>();
    for (int i = 0; i < text.length(); i++) {
      char c = text.charAt(i);
      if (c == '"' || c == '\'') {
        int end = endOfLiteral(text, i, c);
        String literal = text.substring(i, end);
        literals.add(literal.replaceAll("^\"+|\"+$|^'|'$", ""));
        // @Tag("cluster") is read from the code: keep the literal of an annotation's argument
        code.append(code.length() >= 5 && code.substring(code.length() - 5).equals("@Tag(") ? literal : "\"\"");
        i = end - 1;
      } else if (text.startsWith("//", i)) {
        int eol = text.indexOf('\n', i);
        i = eol < 0 ? text.length() : eol - 1;
      } else if (text.startsWith("/*", i)) {
        int end = text.indexOf("*/", i + 2);
        i = end < 0 ? text.length() : end + 1;
        code.append(' ');
      } else {
        code.append(c);
      }
    }
    return new Source(code.toString(), literals);
  }

  private static int endOfLiteral(String s, int start, char quote) {
    if (s.startsWith("\"\"\"", start)) {
      int end = s.indexOf("\"\"\"", start + 3);
      return end < 0 ? s.length() : end + 3;
    }
    for (int i = start + 1; i < s.length(); i++) {
      if (s.charAt(i) == '\\') {
        i++;
      } else if (s.charAt(i) == quote || s.charAt(i) == '\n') {
        return i + 1;
      }
    }
    return s.length();
  }

  private static List<Path> modules() {
    try (Stream<Path> dirs = Files.list(ROOT)) {
      return dirs.filter(d -> Files.isDirectory(d.resolve("src/test/java"))).sorted().toList();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** The module's test sources by simple class name (the file's name). */
  private static Map<String, String> sources(Path testRoot) {
    Map<String, String> sources = new LinkedHashMap<>();
    try (Stream<Path> files = Files.walk(testRoot)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java")).sorted().toList()) {
        String name = f.getFileName().toString();
        sources.put(name.substring(0, name.length() - ".java".length()), Files.readString(f));
      }
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
    return sources;
  }
}
