package io.fleetbus.shared.text;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import org.junit.jupiter.api.Test;

class JsonTextTest {

  @Test
  void notJsonSaysWhatAndWhereWithoutParserInternals() {
    String[][] cases = {
      {"{nope", "unexpected character 'n'", "line 1, column 2"},
      {"{\"a\": 1", "a '}' is missing", "line 1, column 8"},
      {"nope", "unrecognized token 'nope'", "line 1, column 5"},
      {"{\n  \"a\": 1,\n}", "unexpected character '}'", "line 3, column 1"},
      {"{\"a\": \"x\ny\"}", "control character, code 10", "line 1, column 9"},
    };
    for (String[] c : cases) {
      FleetException e = assertThrows(FleetException.class, () -> JsonText.object(c[0], "body"));
      assertEquals(FailureCode.BAD_REQUEST, e.code());
      String m = e.getMessage();
      assertTrue(m.startsWith("body is not JSON: "), m);
      assertTrue(m.contains(c[1]) && m.contains(c[2]), c[0] + " → " + m);
      for (String internal : new String[] {"Source", "REDACTED", "StreamReadFeature", "jackson", "Exception", "(code "}) {
        assertFalse(m.contains(internal), c[0] + " → " + m);
      }
    }
  }

  @Test
  void anotherJsonValueIsNamedAndBlankIsAnEmptyObject() {
    FleetException e = assertThrows(FleetException.class, () -> JsonText.object("[1]", "body"));
    assertEquals("body must be a JSON object, not an array", e.getMessage());
    assertTrue(JsonText.object("  ", "x").isEmpty());
    assertEquals(1, JsonText.object("{\"a\": 1}", "x").getInteger("a"));
  }
}
