package io.fleetbus.shared.trust;

import io.vertx.core.json.Json;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.math.BigDecimal;
import java.math.BigInteger;
import java.util.List;
import java.util.Map;
import java.util.TreeMap;

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
    } else {
      // strings, and what Vert.x writes as strings (Instant, byte[], Buffer, enums)
      out.append(Json.encode(value));
    }
  }

  private static void writeObject(StringBuilder out, Map<String, Object> map) {
    out.append('{');
    boolean first = true;
    for (Map.Entry<String, Object> e : new TreeMap<>(map).entrySet()) {
      if (!first) {
        out.append(',');
      }
      first = false;
      out.append(Json.encode(e.getKey())).append(':');
      write(out, e.getValue());
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
