package io.fleetbus.shared.fault;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import java.util.stream.Stream;
import org.junit.jupiter.api.Test;

/** The switches read once from properties; security ones refused outside a test run; the doc's table is the enum's. */
class FaultSwitchesTest {
  private static final Path ROOT = Path.of("..").toAbsolutePath().normalize();
  private static final Path DOC = ROOT.resolve("docs").resolve("fault-switches.md");
  private static final Pattern READ = Pattern.compile("(?:getBoolean|getProperty|getInteger|getLong)\\(\"(fleetbus\\.[^\"]+)\"");
  /** Main classes that read a switch where they are, not through the enum: none (add one only with a reason). */
  private static final Set<String> READ_ELSEWHERE = Set.of();

  private static Properties props(String... kv) {
    Properties p = new Properties();
    for (int i = 0; i < kv.length; i += 2) {
      p.setProperty(kv[i], kv[i + 1]);
    }
    return p;
  }

  @Test
  void readsTheSwitchesOnAsBooleanGetBooleanDoes() {
    FaultSwitches s = FaultSwitches.read(props("fleetbus.fault.noAuthz", "TRUE", "fleetbus.fault.onlineAtHello", "false",
      "fleetbus.stages", "true", "fleetbus.fault.noSuchThing", "true"));
    assertEquals(List.of(FaultSwitch.NO_AUTHZ, FaultSwitch.STAGES), List.copyOf(s.all()));
    assertEquals(List.of(FaultSwitch.NO_AUTHZ), s.security());
    assertFalse(s.testRun());
    assertEquals("noAuthz", FaultSwitch.NO_AUTHZ.shortName());
    assertEquals("signEveryCall", FaultSwitch.SIGN_EVERY_CALL.shortName());
  }

  @Test
  void aSecuritySwitchOutsideATestRunIsRefusedByName() {
    FaultSwitches s = FaultSwitches.read(props("fleetbus.fault.noAuthz", "true", "fleetbus.fault.noCallSealing", "true"));
    FaultSwitches.Refused refused = assertThrows(FaultSwitches.Refused.class, () -> s.refuseOutsideTests("hub"));
    assertTrue(refused.getMessage().startsWith("refusing to start the hub: security fault switches "
      + "-Dfleetbus.fault.noAuthz=true ("), refused.getMessage());
    assertTrue(refused.getMessage().contains("-Dfleetbus.fault.noCallSealing=true")
      && refused.getMessage().contains("-Dfleetbus.testRun=true"), refused.getMessage());
  }

  @Test
  void aTestRunOrAFaultThatIsNotSecurityStarts() {
    FaultSwitches test = FaultSwitches.read(props("fleetbus.fault.noAuthz", "true", FaultSwitches.TEST_RUN, "true"));
    assertSame(test, test.refuseOutsideTests("hub"));
    FaultSwitches reliability = FaultSwitches.read(props("fleetbus.fault.answerBeforeAudit", "true", "fleetbus.stages", "true"));
    assertSame(reliability, reliability.refuseOutsideTests("hub"), "reliability faults and knobs are not refused");
  }

  @Test
  void theSnapshotIsReadOnceAndChangedOnlyInATestRun() {
    FaultSwitches active = FaultSwitches.active();
    String before = System.setProperty(FaultSwitch.ONLINE_AT_HELLO.property(), "true");
    try {
      assertSame(active, FaultSwitches.active(), "a property set later changes nothing");
      assertEquals(active.on(FaultSwitch.ONLINE_AT_HELLO), FaultSwitch.ONLINE_AT_HELLO.on());
    } finally {
      if (before == null) {
        System.clearProperty(FaultSwitch.ONLINE_AT_HELLO.property());
      } else {
        System.setProperty(FaultSwitch.ONLINE_AT_HELLO.property(), before);
      }
    }
    // surefire runs with -Dfleetbus.testRun=true (the parent pom): the override works and is undone
    assertTrue(active.testRun(), "the parent pom's surefire sets " + FaultSwitches.TEST_RUN);
    try (FaultSwitches.Restore r = FaultSwitches.overrideInTest(FaultSwitches.of(FaultSwitch.NO_TREE_KILL))) {
      assertTrue(FaultSwitch.NO_TREE_KILL.on());
    }
    assertSame(active, FaultSwitches.active());
  }

  /** The table in docs/fault-switches.md, as this enum writes it: on a difference, paste the expected table. */
  @Test
  void theDocListsEverySwitchAsTheEnumDoes() throws IOException {
    String doc = Files.readString(DOC);
    String table = table();
    assertTrue(doc.contains(table), "docs/fault-switches.md's table differs from FaultSwitch; it should read:\n" + table);
  }

  static String table() {
    StringBuilder t = new StringBuilder("| property | kind | what it breaks (or, for a knob, changes) |\n|---|---|---|\n");
    for (FaultSwitch s : FaultSwitch.values()) {
      t.append("| `").append(s.property()).append("` | ").append(s.kind().name().toLowerCase(java.util.Locale.ROOT))
        .append(" | ").append(s.breaks().replace("|", "\\|")).append(" |\n");
    }
    return t.toString();
  }

  /** No main class reads a fleetbus.* system property but through the enum (and the enum knows every one read). */
  @Test
  void mainCodeReadsSwitchesOnlyThroughTheEnum() throws IOException {
    Set<String> known = Arrays.stream(FaultSwitch.values()).map(FaultSwitch::property).collect(Collectors.toSet());
    known.add(FaultSwitches.TEST_RUN);
    List<String> wrong = new ArrayList<>();
    try (Stream<Path> files = Files.walk(ROOT)) {
      for (Path f : files.filter(p -> p.toString().endsWith(".java") && p.toString().contains("/src/main/")
        && !p.toString().contains("/target/")).toList()) {
        Matcher m = READ.matcher(Files.readString(f));
        while (m.find()) {
          String where = ROOT.relativize(f) + ": " + m.group(1);
          if (!known.contains(m.group(1))) {
            wrong.add(where + " (not in FaultSwitch)");
          } else if (!READ_ELSEWHERE.contains(f.getFileName().toString())) {
            wrong.add(where + " (read directly: ask FaultSwitch)");
          }
        }
      }
    }
    assertTrue(wrong.isEmpty(), String.join("\n", wrong));
  }
}
