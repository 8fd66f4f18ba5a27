package io.fleetbus.node.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.fleetbus.node.tools.command.CommandLine;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import java.util.List;
import org.junit.jupiter.api.Tag;

/**
 * Any command line: split into non-empty argv with no NUL, or refused with a 400. An unquoted shell
 * operator never survives into argv.
 */
@Tag("fuzz")
class CommandLineFuzzTest {

  @FuzzTest(maxDuration = "30s")
  void commandLinesSplitOrAreRefused(FuzzedDataProvider data) {
    String line = data.consumeRemainingAsString();
    List<String> argv;
    try {
      argv = CommandLine.split(line);
    } catch (FleetException e) {
      assertEquals(FailureCode.BAD_REQUEST, e.code());
      return;
    }
    assertFalse(argv.isEmpty());
    for (String word : argv) {
      assertFalse(word.indexOf('\0') >= 0, "NUL in argv");
    }
    if (!line.contains("'")) {
      // without single quotes nothing can hide an operator, so none may appear anywhere
      for (char op : ";|&<>`$\n\r".toCharArray()) {
        assertFalse(String.join(" ", argv).indexOf(op) >= 0, "operator " + op + " passed: " + argv);
      }
    }
  }
}
