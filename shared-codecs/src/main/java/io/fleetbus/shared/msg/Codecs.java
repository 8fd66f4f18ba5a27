package io.fleetbus.shared.msg;

import io.vertx.core.Vertx;
import io.vertx.core.eventbus.EventBus;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.function.Function;
import java.util.stream.Collectors;

/**
 * The message records and their JSON forms: registered as event-bus codecs (call {@link #register} once per Vertx
 * instance, right after creating it), and named for links that carry bodies as JSON ({@link #toJson}/{@link #fromJson},
 * the edge transport).
 */
public final class Codecs {
  /** One message record: its codec name ({@code fleetbus.<SimpleName>}) and both directions of its JSON form. */
  private record Kind<T>(Class<T> type, Function<T, JsonObject> toJson, Function<JsonObject, T> fromJson) {
    String name() {
      return "fleetbus." + type.getSimpleName();
    }

    RecordCodec<T> codec() {
      return new RecordCodec<>(type, toJson, fromJson);
    }

    JsonObject encode(Object value) {
      return toJson.apply(type.cast(value));
    }
  }

  private static final List<Kind<?>> KINDS = List.of(
    new Kind<>(ToolCall.class, ToolCall::toJson, ToolCall::fromJson),
    new Kind<>(ToolResult.class, ToolResult::toJson, ToolResult::fromJson),
    new Kind<>(Heartbeat.class, Heartbeat::toJson, Heartbeat::fromJson),
    new Kind<>(NodeHello.class, NodeHello::toJson, NodeHello::fromJson),
    new Kind<>(NodeRegistered.class, NodeRegistered::toJson, NodeRegistered::fromJson),
    new Kind<>(StreamChunk.class, StreamChunk::toJson, StreamChunk::fromJson),
    new Kind<>(Control.class, Control::toJson, Control::fromJson));
  private static final Map<Class<?>, Kind<?>> BY_TYPE = KINDS.stream().collect(Collectors.toMap(Kind::type, k -> k));
  private static final Map<String, Kind<?>> BY_NAME = KINDS.stream().collect(Collectors.toMap(Kind::name, k -> k));

  private Codecs() {
  }

  public static void register(Vertx vertx) {
    EventBus bus = vertx.eventBus();
    KINDS.forEach(kind -> register(bus, kind));
  }

  private static <T> void register(EventBus bus, Kind<T> kind) {
    bus.registerDefaultCodec(kind.type(), kind.codec());
  }

  /** The codec name of a message record, or null when {@code value} is not one. */
  public static String nameOf(Object value) {
    Kind<?> kind = value == null ? null : BY_TYPE.get(value.getClass());
    return kind == null ? null : kind.name();
  }

  /** The JSON form of a message record ({@link #nameOf} not null). */
  public static JsonObject toJson(Object record) {
    return BY_TYPE.get(record.getClass()).encode(record);
  }

  /** The record named {@code name} from its JSON form; IllegalArgumentException for an unknown name. */
  public static Object fromJson(String name, JsonObject json) {
    Kind<?> kind = BY_NAME.get(name);
    if (kind == null) {
      throw new IllegalArgumentException("unknown message kind '" + name + "'");
    }
    return kind.fromJson().apply(json);
  }
}
