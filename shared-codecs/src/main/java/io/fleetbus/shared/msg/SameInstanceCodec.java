package io.fleetbus.shared.msg;

import io.vertx.core.eventbus.MessageCodec;

/** A codec whose local hops hand the receiver the same (immutable) instance; subclasses say how it crosses the cluster. */
abstract class SameInstanceCodec<T> implements MessageCodec<T, T> {
  private final String name;

  SameInstanceCodec(String name) {
    this.name = name;
  }

  @Override
  public final T transform(T value) {
    return value;
  }

  @Override
  public final String name() {
    return name;
  }

  @Override
  public final byte systemCodecID() {
    return -1;
  }
}
