package io.fleetbus.hub.api;

import io.fleetbus.hub.enrollment.CallTargets;
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
 * another address and can overtake the last chunks. A caller who follows a job ({@link #follows}) listens on until
 * the job's last chunk ({@link #end()}): the job outlives its call, and its node streams to the call's address until
 * the job ends.
 */
public final class CallStream {
  private static final Logger LOG = LoggerFactory.getLogger(CallStream.class);
  /** After the last chunk, how long output chunks it overtook may still take. */
  private static final long STRAGGLER_GRACE_MS = 500;

  private final Vertx vertx;
  private final MessageConsumer<StreamChunk> consumer;
  private final String callId;
  /** Completes with the last chunk's data (a job's final state, or "") once every chunk before it arrived. */
  private final Promise<String> ended = Promise.promise();
  private long received;
  private long lastSeq = -1;
  private String lastData;

  private CallStream(Vertx vertx, String callId, NodeKeyring keyring, Consumer<StreamChunk> onChunk) {
    this.vertx = vertx;
    this.callId = callId;
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
        lastSeq = chunk.seq();
        lastData = chunk.data();
        // chunks travel one by one: output sent just before the last one may still be on its way
        vertx.setTimer(STRAGGLER_GRACE_MS, t -> ended.tryComplete(lastData));
      } else {
        received++;
        onChunk.accept(chunk);
      }
      if (lastSeq > 0 && received >= lastSeq - 1) {
        ended.tryComplete(lastData);
      }
    });
  }

  /** Whether the caller asked to follow the call's work to its end ({@code follow: true}, job_launch). */
  public static boolean follows(io.fleetbus.shared.msg.ToolCall call) {
    return call.args() != null && Boolean.TRUE.equals(call.args().getValue("follow"));
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
    long timer = vertx.setTimer(graceMs, t -> ended.tryComplete(null));
    return ended.future().<Void>mapEmpty().onComplete(v -> {
      vertx.cancelTimer(timer);
      close();
    });
  }

  /**
   * Completes with the last chunk's data when the work that took the call's stream over (a job) has ended and its
   * output arrived — however long that takes; then stops listening. {@link #close()} before that: never completes.
   */
  public Future<String> end() {
    return ended.future().onComplete(v -> close());
  }

  public void close() {
    consumer.unregister();
    CallTargets.done(vertx, callId);
  }
}
