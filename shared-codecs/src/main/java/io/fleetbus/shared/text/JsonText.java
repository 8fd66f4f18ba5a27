package io.fleetbus.shared.text;

import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.Json;
import io.vertx.core.json.JsonObject;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * JSON text from a client, parsed with refusals a person can read: what is wrong and where (line, column), without
 * the parser's class names or its source-location boilerplate.
 */
public final class JsonText {
  private static final Pattern LOCATION = Pattern.compile("line: (\\d+), column: (\\d+)]\\s*$");
  private static final Pattern NESTED_SOURCE = Pattern.compile("\\s*\\((?:start marker|for root starting) at \\[Source:[^\\]]*]\\)");
  private static final Pattern CHAR_CODE = Pattern.compile("\\('(.)' \\(code \\d+\\)\\)|\\((.) \\(code \\d+\\)\\)");
  private static final Pattern CTRL_CHAR = Pattern.compile("\\(\\(CTRL-CHAR, code (\\d+)\\)\\)");

  private JsonText() {
  }

  /**
   * A request body (or message: {@code what}) that must be a JSON object; empty or blank counts as {@code {}}. Throws a
   * 400 {@link io.fleetbus.shared.bus.FleetException}: "body is not JSON: … (line 1, column 2)", or "body must be a JSON
   * object, not an array".
   */
  public static JsonObject object(String text, String what) {
    if (text == null || text.isBlank()) {
      return new JsonObject();
    }
    Object parsed = decode(text, what);
    if (parsed instanceof JsonObject o) {
      return o;
    }
    throw FailureCode.BAD_REQUEST.exception(what + " must be a JSON object, not " + kind(parsed));
  }

  /** Any JSON value; throws a 400 "{what} is not JSON: …" naming the position. */
  public static Object decode(String text, String what) {
    try {
      return Json.decodeValue(text);
    } catch (DecodeException e) {
      throw FailureCode.BAD_REQUEST.exception(what + " is not JSON: " + plain(e.getMessage()));
    }
  }

  /** The parser's words made plain: the problem, then where it is. */
  static String plain(String parserMessage) {
    if (parserMessage == null) {
      return "unreadable";
    }
    String message = parserMessage.strip();
    String where = "";
    int at = message.lastIndexOf("\n at [Source");
    if (at >= 0) {
      Matcher m = LOCATION.matcher(message.substring(at));
      if (m.find()) {
        where = " (line " + m.group(1) + ", column " + m.group(2) + ")";
      }
      message = message.substring(0, at);
    }
    message = NESTED_SOURCE.matcher(message).replaceAll("");
    message = CTRL_CHAR.matcher(message).replaceAll(r -> "(a control character, code " + r.group(1) + ")");
    message = CHAR_CODE.matcher(message).replaceAll(r -> Matcher.quoteReplacement(
      "'" + (r.group(1) != null ? r.group(1) : r.group(2)) + "'"));
    message = message.replace("Unexpected end-of-input", "the text ends too early")
      .replace("expected close marker for Object", "a '}' is missing")
      .replace("expected close marker for Array", "a ']' is missing");
    if (!message.isEmpty()) {
      message = Character.toLowerCase(message.charAt(0)) + message.substring(1);
    }
    return message + where;
  }

  private static String kind(Object v) {
    if (v instanceof io.vertx.core.json.JsonArray) {
      return "an array";
    }
    if (v instanceof String) {
      return "a string";
    }
    if (v instanceof Number) {
      return "a number";
    }
    if (v instanceof Boolean) {
      return "a boolean";
    }
    return v == null ? "null" : "a " + v.getClass().getSimpleName();
  }
}
