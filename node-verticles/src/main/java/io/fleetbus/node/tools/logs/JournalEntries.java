package io.fleetbus.node.tools.logs;

import io.fleetbus.shared.trust.SecretMasker;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.time.Instant;

/** Turns {@code journalctl -o json} output (one JSON object per line) into event entries. */
public final class JournalEntries {
  static final String[] LEVELS = {"emergency", "alert", "critical", "error", "warning", "notice", "information", "debug"};

  private JournalEntries() {
  }

  /** Every complete entry of the output; a line cut by the output cap is skipped. */
  public static JsonArray parse(String output) {
    JsonArray events = new JsonArray();
    for (String line : output.split("\n")) {
      if (line.isBlank() || !line.startsWith("{")) {
        continue;
      }
      JsonObject e;
      try {
        e = new JsonObject(line);
      } catch (DecodeException ex) {
        continue;
      }
      events.add(entry(e));
    }
    return events;
  }

  static JsonObject entry(JsonObject e) {
    String micros = e.getString("__REALTIME_TIMESTAMP");
    String time = micros == null ? null : Instant.ofEpochSecond(0, Long.parseLong(micros) * 1000).toString();
    int priority = parseInt(e.getValue("PRIORITY"), 6);
    String pid = e.getString("_PID");
    return new JsonObject()
      .put("time", time)
      .put("level", LEVELS[Math.max(0, Math.min(7, priority))])
      .put("unit", e.getString("_SYSTEMD_UNIT"))
      .put("process", e.getString("SYSLOG_IDENTIFIER", e.getString("_COMM")))
      .put("pid", pid == null ? null : Integer.valueOf(pid))
      .put("message", SecretMasker.maskLine(message(e.getValue("MESSAGE"))));
  }

  /** MESSAGE is a string, or an array of bytes when it was not valid UTF-8. */
  private static String message(Object v) {
    if (v instanceof JsonArray bytes) {
      byte[] b = new byte[bytes.size()];
      for (int i = 0; i < b.length; i++) {
        b[i] = (byte) bytes.getInteger(i).intValue();
      }
      return new String(b, StandardCharsets.UTF_8);
    }
    return v == null ? "" : v.toString();
  }

  private static int parseInt(Object v, int fallback) {
    try {
      return v == null ? fallback : Integer.parseInt(v.toString());
    } catch (NumberFormatException e) {
      return fallback;
    }
  }
}
