package io.fleetbus.shared.edge;

import io.fleetbus.shared.msg.Codecs;
import io.vertx.core.MultiMap;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;

/**
 * The edge link's wire form: the TCP event-bus bridge's framing (a 4-byte big-endian length, then that many bytes of
 * UTF-8 JSON), one JSON object per frame. Keys are short because heartbeats and chunks are most of the traffic:
 * <ul>
 *   <li>{@code t}: {@code send} | {@code pub} | {@code ok} (a reply) | {@code fail} | {@code hi} (the hub's welcome) |
 *       {@code ping} | {@code pong}</li>
 *   <li>{@code a}: the address; {@code id}: set on a send that wants a reply; {@code re}: the id a reply answers</li>
 *   <li>{@code h}: headers (name → value); {@code k}: the message kind when the body is a record
 *       ({@link Codecs#nameOf}), {@code b}: the body (the record's JSON form, or the JSON value itself)</li>
 *   <li>{@code c}, {@code m}: a failure's code and message</li>
 * </ul>
 */
public final class EdgeFrames {
  static final String TYPE = "t";
  static final String SEND = "send";
  static final String PUBLISH = "pub";
  static final String OK = "ok";
  static final String FAIL = "fail";
  public static final String WELCOME = "hi";
  static final String PING = "ping";
  static final String PONG = "pong";

  private EdgeFrames() {
  }

  /** A frame as bytes on the wire. */
  public static Buffer encode(JsonObject frame) {
    Buffer json = frame.toBuffer();
    return Buffer.buffer(json.length() + 4).appendInt(json.length()).appendBuffer(json);
  }

  /** Puts {@code body} in {@code frame}: a message record by its kind and JSON form, JSON values as they are. */
  static JsonObject withBody(JsonObject frame, Object body) {
    String kind = Codecs.nameOf(body);
    if (kind != null) {
      return frame.put("k", kind).put("b", Codecs.toJson(body));
    }
    if (body == null || body instanceof JsonObject || body instanceof JsonArray || body instanceof String
      || body instanceof Number || body instanceof Boolean) {
      return frame.put("b", body);
    }
    throw new IllegalArgumentException("a " + body.getClass().getSimpleName() + " cannot cross the edge link");
  }

  /** The body a frame carries; IllegalArgumentException when its kind is unknown or its form does not decode. */
  static Object body(JsonObject frame) {
    String kind = frame.getString("k");
    if (kind == null) {
      return frame.getValue("b");
    }
    try {
      return Codecs.fromJson(kind, frame.getJsonObject("b"));
    } catch (ClassCastException | NullPointerException e) {
      throw new IllegalArgumentException("a " + kind + " body that does not decode: " + e.getMessage());
    }
  }

  static JsonObject headers(MultiMap headers) {
    JsonObject out = new JsonObject();
    if (headers != null) {
      headers.forEach(e -> out.put(e.getKey(), e.getValue()));
    }
    return out;
  }

  static MultiMap headers(JsonObject frame) {
    MultiMap out = MultiMap.caseInsensitiveMultiMap();
    JsonObject h = frame.getJsonObject("h");
    if (h != null) {
      for (Map.Entry<String, Object> e : h) {
        if (e.getValue() instanceof String v) {
          out.add(e.getKey(), v);
        }
      }
    }
    return out;
  }
}
