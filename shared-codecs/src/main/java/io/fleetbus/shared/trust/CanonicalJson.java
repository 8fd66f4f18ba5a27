package io.fleetbus.shared.trust;

import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.Arrays;
import java.util.List;
import java.util.Map;

/**
 * One text per JSON value, whichever side of the wire computes it: keys sorted, no spaces, numbers
 * written as the receiver will read them back. Hub and node hash and sign this form, never the
 * bytes they happened to send.
 */
public final class CanonicalJson {
  private CanonicalJson() {
  }

  public static String of(Object value) {
    StringBuilder out = new StringBuilder(128);
    write(out, value);
    return out.toString();
  }

  /** SHA-256 (hex) of the canonical form: the digest signatures and approvals name. */
  public static String sha256(Object value) {
    return Digests.sha256Hex(of(value));
  }

  @SuppressWarnings("unchecked")
  private static void write(StringBuilder out, Object value) {
    if (value == null) {
      out.append("null");
    } else if (value instanceof JsonObject o) {
      writeObject(out, o.getMap());
    } else if (value instanceof Map<?, ?> m) {
      writeObject(out, (Map<String, Object>) m);
    } else if (value instanceof JsonArray a) {
      writeArray(out, a.getList());
    } else if (value instanceof List<?> l) {
      writeArray(out, l);
    } else if (value instanceof Boolean b) {
      out.append(b.booleanValue());
    } else if (value instanceof Integer || value instanceof Long || value instanceof Short || value instanceof Byte) {
      out.append(((Number) value).longValue());
    } else if (value instanceof BigInteger || value instanceof BigDecimal) {
      out.append(value);
    } else if (value instanceof Float f) {
      // a float crosses the wire as its shortest text and comes back a double
      out.append(Double.toString(Double.parseDouble(Float.toString(f))));
    } else if (value instanceof Double d) {
      out.append(Double.toString(d));
    } else if (value instanceof String s) {
      writeString(out, s);
    } else {
      // what Vert.x writes as strings (Instant, byte[], Buffer, enums)
      out.append(Json.encode(value));
    }
  }

  /**
   * A string as Jackson (Vert.x's {@code Json.encode}) writes it: a string with nothing to escape — no control
   * character, quote or backslash; Jackson escapes nothing else by default — is copied between quotes, any other goes
   * through Jackson itself, so the text stays exactly what earlier versions (and nodes running them) produce.
   */
  private static void writeString(StringBuilder out, String s) {
    for (int i = 0; i < s.length(); i++) {
      char c = s.charAt(i);
      if (c < 0x20 || c == '"' || c == '\\') {
        out.append(Json.encode(s));
        return;
      }
    }
    out.append('"').append(s).append('"');
  }

  private static void writeObject(StringBuilder out, Map<String, Object> map) {
    out.append('{');
    // the keys in String order, as a TreeMap would give them, without building one per object
    String[] keys = map.keySet().toArray(new String[0]);
    Arrays.sort(keys);
    for (int i = 0; i < keys.length; i++) {
      if (i > 0) {
        out.append(',');
      }
      writeString(out, keys[i]);
      out.append(':');
      write(out, map.get(keys[i]));
    }
    out.append('}');
  }

  private static void writeArray(StringBuilder out, List<?> list) {
    out.append('[');
    for (int i = 0; i < list.size(); i++) {
      if (i > 0) {
        out.append(',');
      }
      write(out, list.get(i));
    }
    out.append(']');
  }
}
