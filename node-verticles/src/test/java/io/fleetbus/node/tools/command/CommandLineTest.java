package io.fleetbus.node.tools.command;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import java.util.List;
import org.junit.jupiter.params.ParameterizedTest;
import org.junit.jupiter.params.provider.ValueSource;
import org.junit.jupiter.api.Test;

class CommandLineTest {

  @Test
  void splitsOnBlanksAndHonoursQuotes() {
    assertEquals(List.of("echo", "a b", "c", "it's"), CommandLine.split("echo 'a b'  c \"it's\""));
    assertEquals(List.of("grep", "-e", "x y", "file"), CommandLine.split("grep -e x\\ y file"));
    assertEquals(List.of("echo", ""), CommandLine.split("echo ''"));
    assertEquals(List.of("echo", "a\"b"), CommandLine.split("echo \"a\\\"b\""));
  }

  @Test
  void operatorsInsideSingleQuotesAreLiteralText() {
    assertEquals(List.of("echo", "a;b|c"), CommandLine.split("echo 'a;b|c'"));
  }

  @ParameterizedTest
  @ValueSource(strings = {"echo hi; rm -rf /", "echo hi | sh", "echo $(id)", "echo `id`", "echo hi && reboot",
    "cat < /etc/shadow", "echo hi > /etc/passwd", "echo \"$HOME\"", "echo hi\nreboot", "echo hi &"})
  void shellOperatorsAreRefused(String line) {
    FleetException e = assertThrows(FleetException.class, () -> CommandLine.split(line));
    assertEquals(FailureCode.BAD_REQUEST, e.code());
    assertTrue(e.getMessage().contains("shell operator"), e.getMessage());
  }

  @ParameterizedTest
  @ValueSource(strings = {"", "   ", "echo 'open", "echo \"open", "echo \\"})
  void malformedLinesAreRefused(String line) {
    assertThrows(FleetException.class, () -> CommandLine.split(line));
  }

  @Test
  void escapedOperatorsAndNulAreRefusedLikeBareOnes() {
    assertThrows(FleetException.class, () -> CommandLine.split("echo a\\;b"));
    assertThrows(FleetException.class, () -> CommandLine.split("echo \\$HOME"));
    assertThrows(FleetException.class, () -> CommandLine.split("echo \\\0"));
  }

  @Test
  void nulIsRefused() {
    assertThrows(FleetException.class, () -> CommandLine.split("echo a\0b"));
    assertThrows(FleetException.class, () -> CommandLine.checkArgument("a\0b"));
  }

  @Test
  void allowlistTakesBareNamesOnly() {
    CommandAllowlist list = new CommandAllowlist(List.of("echo"));
    list.check("echo");
    assertEquals(FailureCode.FORBIDDEN, assertThrows(FleetException.class, () -> list.check("rm")).code());
    assertEquals(FailureCode.FORBIDDEN, assertThrows(FleetException.class, () -> list.check("/tmp/echo")).code());
    assertEquals(FailureCode.FORBIDDEN, assertThrows(FleetException.class, () -> list.check("../bin/echo")).code());
  }
}
