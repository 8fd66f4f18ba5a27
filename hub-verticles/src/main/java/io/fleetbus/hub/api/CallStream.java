package io.fleetbus.hub.api;

import io.fleetbus.hub.enrollment.NodeKeyring;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.msg.StreamChunk;
import io.fleetbus.shared.trust.CallSeal;
import io.fleetbus.shared.trust.NodeProofs;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.MessageConsumer;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Listens to one call's stream address for a frontend. Register it before submitting the call (the node
 * drops chunks nobody listens to), and let it drain before sending the result: the reply travels on
 * another address and can overtake the last chunks.
 */
public final class CallStream {
  private static final Logger LOG = LoggerFactory.getLogger(CallStream.class);

  private final Vertx vertx;
  private final MessageConsumer<StreamChunk> consumer;
  private final Promise<Void> ended = Promise.promise();

  private CallStream(Vertx vertx, String callId, NodeKeyring keyring, Consumer<StreamChunk> onChunk) {
    this.vertx = vertx;
    this.consumer = vertx.eventBus().consumer(Addresses.callStream(callId), m -> {
      StreamChunk chunk = m.body();
      if (m.headers().contains(CallSeal.SEALED_HEADER)) {
        // sealed by the node for this hub (its proof was checked on arrival: VerifiedFacts)
        String node = m.headers().get(NodeProofs.NODE_HEADER);
        try {
          chunk = keyring.openChunk(node, chunk);
        } catch (IllegalArgumentException e) {
          LOG.warn("stream chunk dropped: it does not open [call: {}, node: {}, seq: {}, reason: {}]", callId, node,
            chunk.seq(), e.getMessage());
          return;
        }
      }
      if (chunk.fin()) {
        ended.tryComplete();
      } else {
        onChunk.accept(chunk);
      }
    });
  }

  /** @param keyring opens the chunks a node sealed (see CallSeal) */
  public static CallStream listen(Vertx vertx, String callId, NodeKeyring keyring, Consumer<StreamChunk> onChunk) {
    return new CallStream(vertx, callId, keyring, onChunk);
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
