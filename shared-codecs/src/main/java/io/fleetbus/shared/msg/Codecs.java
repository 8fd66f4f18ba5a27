package io.fleetbus.shared.msg;

import io.vertx.core.Vertx;
import io.vertx.core.eventbus.EventBus;

/** Registers the codecs of every message record. Call once per Vertx instance, right after creating it. */
public final class Codecs {
  private Codecs() {
  }

  public static void register(Vertx vertx) {
    EventBus bus = vertx.eventBus();
    bus.registerDefaultCodec(ToolCall.class, new RecordCodec<>(ToolCall.class, ToolCall::toJson, ToolCall::fromJson));
    bus.registerDefaultCodec(ToolResult.class, new RecordCodec<>(ToolResult.class, ToolResult::toJson, ToolResult::fromJson));
    bus.registerDefaultCodec(Heartbeat.class, new RecordCodec<>(Heartbeat.class, Heartbeat::toJson, Heartbeat::fromJson));
    bus.registerDefaultCodec(NodeHello.class, new RecordCodec<>(NodeHello.class, NodeHello::toJson, NodeHello::fromJson));
    bus.registerDefaultCodec(NodeRegistered.class,
      new RecordCodec<>(NodeRegistered.class, NodeRegistered::toJson, NodeRegistered::fromJson));
    bus.registerDefaultCodec(StreamChunk.class, new RecordCodec<>(StreamChunk.class, StreamChunk::toJson, StreamChunk::fromJson));
    bus.registerDefaultCodec(Control.class, new RecordCodec<>(Control.class, Control::toJson, Control::fromJson));
  }
}
