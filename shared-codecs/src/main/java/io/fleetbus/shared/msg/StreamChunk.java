package io.fleetbus.shared.msg;

import io.vertx.core.json.JsonObject;

/** One piece of a call's streamed output ({@code stream} is stdout, stderr or progress). */
public record StreamChunk(String callId, long seq, String stream, String data, boolean fin) {

  public JsonObject toJson() {
    return new JsonObject().put("callId", callId).put("seq", seq).put("stream", stream).put("data", data).put("final", fin);
  }

  public static StreamChunk fromJson(JsonObject j) {
    return new StreamChunk(j.getString("callId"), j.getLong("seq", 0L), j.getString("stream"),
      j.getString("data"), j.getBoolean("final", false));
  }
}
