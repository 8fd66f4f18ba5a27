package io.fleetbus.hub.api;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.msg.StreamChunk;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import java.util.function.Consumer;

/**
 * Listens to one call's stream address for a frontend. Register it before submitting the call (the node
 * drops chunks nobody listens to), and let it drain before sending the result: the reply travels on
 * another address and can overtake the last chunks.
 */
public final class CallStream {
  private final Vertx vertx;
  private final MessageConsumer<StreamChunk> consumer;
  private final Promise<Void> ended = Promise.promise();

  private CallStream(Vertx vertx, String callId, Consumer<StreamChunk> onChunk) {
    this.vertx = vertx;
    this.consumer = vertx.eventBus().consumer(Addresses.callStream(callId), m -> {
      StreamChunk chunk = m.body();
      if (chunk.fin()) {
        ended.tryComplete();
      } else {
        onChunk.accept(chunk);
      }
    });
  }

  public static CallStream listen(Vertx vertx, String callId, Consumer<StreamChunk> onChunk) {
    return new CallStream(vertx, callId, onChunk);
  }

  /** Completes once the consumer is registered cluster-wide: only then may the call be submitted. */
  public Future<Void> ready() {
    return consumer.completion();
  }

  /** Completes when the node's last chunk has arrived, or {@code graceMs} from now at the latest; then stops listening. */
  public Future<Void> drained(long graceMs) {
    long timer = vertx.setTimer(graceMs, t -> ended.tryComplete());
    return ended.future().onComplete(v -> {
      vertx.cancelTimer(timer);
      close();
    });
  }

  public void close() {
    consumer.unregister();
  }
}
