package io.fleetbus.shared.msg;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.util.function.Function;

/**
 * Event-bus codec for one message record. Local hops hand over the same (immutable) instance;
 * cluster hops carry the record as length-prefixed JSON.
 */
final class RecordCodec<T> extends SameInstanceCodec<T> {
  private final Function<T, JsonObject> toJson;
  private final Function<JsonObject, T> fromJson;

  RecordCodec(Class<T> type, Function<T, JsonObject> toJson, Function<JsonObject, T> fromJson) {
    super("fleetbus." + type.getSimpleName());
    this.toJson = toJson;
    this.fromJson = fromJson;
  }

  @Override
  public void encodeToWire(Buffer buffer, T value) {
    Buffer json = toJson.apply(value).toBuffer();
    buffer.appendInt(json.length()).appendBuffer(json);
  }

  @Override
  public T decodeFromWire(int pos, Buffer buffer) {
    int len = buffer.getInt(pos);
    return fromJson.apply(new JsonObject(buffer.slice(pos + 4, pos + 4 + len)));
  }
}
