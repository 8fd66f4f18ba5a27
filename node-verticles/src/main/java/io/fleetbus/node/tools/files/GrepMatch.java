package io.fleetbus.node.tools.files;

import io.vertx.core.json.JsonObject;

/** One matching line, the same whichever engine found it. */
record GrepMatch(String path, long line, String text) {
  static final int MAX_TEXT = 500;

  static GrepMatch of(String path, long line, String text) {
    String t = text.endsWith("\r") ? text.substring(0, text.length() - 1) : text;
    return new GrepMatch(path, line, t.length() > MAX_TEXT ? t.substring(0, MAX_TEXT) + "…" : t);
  }

  JsonObject toJson() {
    return new JsonObject().put("path", path).put("line", line).put("text", text);
  }

  String formatted() {
    return path + ":" + line + ":" + text;
  }
}
