package io.fleetbus.hub.cli;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;
import java.io.StringWriter;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import org.junit.jupiter.api.Test;

/** How the CLI reads --since and writes times and results, with a fixed zone and clock. */
class CliTextTest {
  private static final ZoneId BERLIN = ZoneId.of("Europe/Berlin");
  private static final long NOW = ZonedDateTime.of(2026, 11, 25, 18, 7, 12, 0, BERLIN).toInstant().toEpochMilli();

  @Test
  void sinceTakesDurationsAndTimes() {
    assertEquals(NOW - 15 * 60_000, Since.parse("15m", BERLIN, NOW));
    assertEquals(NOW - 2 * 3_600_000, Since.parse("2h", BERLIN, NOW));
    assertEquals(NOW - 7 * 86_400_000L, Since.parse("7d", BERLIN, NOW));
    assertEquals(NOW - 30_000, Since.parse("30s", BERLIN, NOW));
    assertEquals(NOW - 90 * 60_000, Since.parse("PT90M", BERLIN, NOW));
    long sixPm = ZonedDateTime.of(2026, 11, 25, 18, 0, 0, 0, BERLIN).toInstant().toEpochMilli();
    assertEquals(sixPm, Since.parse("2026-11-25 18:00", BERLIN, NOW));
    assertEquals(sixPm, Since.parse("2026-11-25T18:00:00", BERLIN, NOW));
    assertEquals(sixPm, Since.parse("18:00", BERLIN, NOW));
    assertEquals(sixPm, Since.parse("2026-11-25T17:00:00Z", BERLIN, NOW));
    assertEquals(sixPm, Since.parse("2026-11-25T18:00:00+01:00", BERLIN, NOW));
    assertEquals(sixPm, Since.parse(Long.toString(sixPm), BERLIN, NOW));
    assertEquals(ZonedDateTime.of(2026, 11, 25, 0, 0, 0, 0, BERLIN).toInstant().toEpochMilli(),
      Since.parse("2026-11-25", BERLIN, NOW));
    IllegalArgumentException bad = assertThrows(IllegalArgumentException.class, () -> Since.parse("last week", BERLIN, NOW));
    assertTrue(bad.getMessage().startsWith("'last week' is neither a duration"), bad.getMessage());
  }

  @Test
  void timesReadAsLocalStampAndHowLongAgo() {
    Text text = new Text(BERLIN, NOW);
    assertEquals("2026-11-25 18:03:12 (4 min ago)", text.when(NOW - 4 * 60_000));
    assertEquals("2026-11-25 18:07:10 (just now)", text.when(NOW - 2_000));
    assertEquals("2026-11-25 18:06:30 (42 s ago)", text.when(NOW - 42_000));
    assertEquals("2026-11-25 15:07:12 (3 h ago)", text.when(NOW - 3 * 3_600_000));
    assertEquals("2026-11-23 18:07:12 (2 d ago)", text.when(NOW - 2 * 86_400_000L));
    assertEquals("in 5 min", text.relative(NOW + 5 * 60_000));
    assertEquals("—", text.when(null));
    assertEquals("3 d 4 h", Text.uptime(3 * 86_400 + 4 * 3_600 + 59));
    assertEquals("1 h 12 min", Text.uptime(3_600 + 12 * 60));
  }

  @Test
  void resultsReadAsFieldsTablesThenOutput() {
    JsonObject data = new JsonObject("""
      {"exitCode": 0, "stdout": "hello\\n", "stderr": "", "os": {"family": "Debian"},
       "processes": [{"pid": 1, "name": "init"}, {"pid": 42, "name": "java", "extra": [1, 2]}], "gpus": []}""");
    StringWriter out = new StringWriter();
    new Text(BERLIN, NOW).data(new PrintWriter(out, true), data);
    assertEquals("""
      exitCode   0
      os.family  Debian
      gpus       —

      processes (2)
      PID  NAME  EXTRA
      1    init  —
      42   java  1, 2
      --- stdout
      hello
      """, out.toString());
  }
}
