package io.fleetbus.shared.msg;

import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;

/**
 * Codec for immutable objects that only travel between verticles of one process (hub-internal hops):
 * the receiver gets the same instance, and any attempt to send one across the cluster fails loudly.
 */
public final class LocalCodec<T> extends SameInstanceCodec<T> {
  private LocalCodec(Class<T> type) {
    super("fleetbus.local." + type.getName());
  }

  public static <T> void register(Vertx vertx, Class<T> type) {
    vertx.eventBus().registerDefaultCodec(type, new LocalCodec<>(type));
  }

  @Override
  public void encodeToWire(Buffer buffer, T value) {
    throw new IllegalStateException(name() + " is local-only and must not cross the cluster");
  }

  @Override
  public T decodeFromWire(int pos, Buffer buffer) {
    throw new IllegalStateException(name() + " is local-only and must not cross the cluster");
  }
}
