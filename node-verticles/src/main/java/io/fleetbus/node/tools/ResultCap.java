package io.fleetbus.node.tools;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.util.Map;

/**
 * The last line of defence against a tool answer too big to carry: while the encoded result is over
 * the cap, the biggest string or array in it is halved, and {@code truncated: true} says so. Tools
 * cap their own output sensibly first; this only catches what slips through.
 */
public final class ResultCap {
  private static final String CUT = "…[truncated]";

  private ResultCap() {
  }

  public static JsonObject apply(JsonObject data, int capBytes) {
    if (data == null || size(data) <= capBytes) {
      return data;
    }
    JsonObject out = data.copy();
    out.put("truncated", true);
    for (int round = 0; round < 64 && size(out) > capBytes; round++) {
      Biggest b = new Biggest();
      find(out, b);
      if (b.size < 64 || !b.shrink()) {
        break;
      }
    }
    if (size(out) > capBytes) {
      // nothing left to cut sensibly: say what happened instead of sending an oversized answer
      return new JsonObject().put("truncated", true).put("error", "the result was larger than " + capBytes
        + " bytes and could not be shortened; narrow the request");
    }
    return out;
  }

  private static int size(JsonObject o) {
    return o.encode().getBytes(StandardCharsets.UTF_8).length;
  }

  /** The largest string or array found so far, with where it lives. */
  private static final class Biggest {
    Object parent;
    Object key;
    int size;

    boolean shrink() {
      Object v = parent instanceof JsonObject o ? o.getValue((String) key) : ((JsonArray) parent).getValue((Integer) key);
      Object smaller;
      if (v instanceof String s) {
        smaller = s.substring(0, s.length() / 2) + CUT;
      } else if (v instanceof JsonArray a && a.size() > 1) {
        smaller = new JsonArray(new java.util.ArrayList<>(a.getList().subList(0, a.size() / 2)));
      } else {
        return false;
      }
      if (parent instanceof JsonObject o) {
        o.put((String) key, smaller);
      } else {
        ((JsonArray) parent).set((Integer) key, smaller);
      }
      return true;
    }
  }

  private static void find(Object node, Biggest b) {
    if (node instanceof JsonObject o) {
      for (Map.Entry<String, Object> e : o) {
        consider(o, e.getKey(), e.getValue(), b);
      }
    } else if (node instanceof JsonArray a) {
      for (int i = 0; i < a.size(); i++) {
        consider(a, i, a.getValue(i), b);
      }
    }
  }

  private static void consider(Object parent, Object key, Object v, Biggest b) {
    int s = v instanceof String str ? str.length() : v instanceof JsonArray a ? a.encode().length() : 0;
    if ((v instanceof String || v instanceof JsonArray a && a.size() > 1) && s > b.size) {
      b.parent = parent;
      b.key = key;
      b.size = s;
    }
    if (v instanceof JsonObject || v instanceof JsonArray) {
      find(v, b);
    }
  }
}
