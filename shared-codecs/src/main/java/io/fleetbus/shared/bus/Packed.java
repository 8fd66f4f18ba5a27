package io.fleetbus.shared.bus;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.MessageCodec;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.Collections;
import java.util.List;
import java.util.Map;
import java.util.WeakHashMap;

/**
 * The arguments of one operation of a bound service, or its answer, as one local-only message body. Records and strings pass by reference, as through {@code LocalCodec}; mutable JSON and lists are
 * copied on the hop, as Vert.x's own JSON codecs do, so sender and receiver never share them.
 */
record Packed(Object[] values) {
  static final Packed NONE = new Packed(new Object[0]);
  private static final Map<Vertx, Boolean> REGISTERED = new WeakHashMap<>();

  static Packed of(Object[] args, int count) {
    if (count == 0) {
      return NONE;
    }
    return new Packed(count == args.length ? args : java.util.Arrays.copyOf(args, count));
  }

  /** An answer as it goes on the bus: in the holder too, so any record (or a list) can be one. */
  static Packed answer(Object result) {
    return result == null ? NONE : new Packed(new Object[] {result});
  }

  /** An answer as the client hands it on. */
  static Object unpack(Packed answer) {
    return answer.values.length == 0 ? null : answer.values[0];
  }

  /** Registers the codec once per Vert.x (binding a service does it; clients need the service bound anyway). */
  static void register(Vertx vertx) {
    synchronized (REGISTERED) {
      if (REGISTERED.put(vertx, Boolean.TRUE) == null) {
        vertx.eventBus().registerDefaultCodec(Packed.class, new Codec());
      }
    }
  }

  private static Object copied(Object value) {
    if (value instanceof JsonObject json) {
      return json.copy();
    } else if (value instanceof JsonArray json) {
      return json.copy();
    } else if (value instanceof List<?> list) {
      try {
        return List.copyOf(list); // an immutable list is handed on as it is
      } catch (NullPointerException withNulls) {
        return Collections.unmodifiableList(new ArrayList<>(list));
      }
    }
    return value;
  }

  private static final class Codec implements MessageCodec<Packed, Packed> {
    @Override
    public Packed transform(Packed packed) {
      Object[] values = packed.values;
      Object[] out = null;
      for (int i = 0; i < values.length; i++) {
        Object copy = copied(values[i]);
        if (copy != values[i]) {
          out = out == null ? values.clone() : out;
          out[i] = copy;
        }
      }
      return out == null ? packed : new Packed(out);
    }

    @Override
    public void encodeToWire(Buffer buffer, Packed packed) {
      throw new IllegalStateException(name() + " is local-only and must not cross the cluster");
    }

    @Override
    public Packed decodeFromWire(int pos, Buffer buffer) {
      throw new IllegalStateException(name() + " is local-only and must not cross the cluster");
    }

    @Override
    public String name() {
      return "fleetbus.local.packed";
    }

    @Override
    public byte systemCodecID() {
      return -1;
    }
  }
}
