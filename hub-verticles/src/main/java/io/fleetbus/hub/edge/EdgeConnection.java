package io.fleetbus.hub.edge;

import io.fleetbus.hub.enrollment.CallTargets;
import io.fleetbus.hub.enrollment.NodeKeyring;
import io.fleetbus.hub.enrollment.VerifiedFacts;
import io.fleetbus.hub.registry.RegistryBus;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.edge.EdgePeer;
import io.fleetbus.shared.fault.FaultSwitch;
import io.fleetbus.shared.fault.FaultSwitches;
import io.fleetbus.shared.msg.Heartbeat;
import io.fleetbus.shared.msg.NodeHello;
import io.fleetbus.shared.msg.StreamChunk;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.trust.NodeProofs;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One edge node's link, seen from the hub that holds it. Until a hello through it is accepted the link may only say
 * hello (anything else is refused; a refused hello, or none accepted within {@code edge.helloWithinSeconds}, closes
 * it).
 * Once the node proved itself, this hub's cluster member holds the node's call and control addresses (the registry
 * pins them here from the hello): whatever any hub sends there crosses the link, and the node's answers come back as
 * the replies. What the node sends is relayed into the cluster only when it is the node's own and proven: its
 * heartbeats and events (its credential's HMAC), its calls' output chunks, its goodbye. A message in another
 * node's name cuts the link at once; anything else not relayed (say, a heartbeat whose proof does not verify: a
 * rekey the hub has not heard of yet) is refused and counted, and a node that keeps sending it is cut.
 */
final class EdgeConnection {
  private static final Logger LOG = LoggerFactory.getLogger(EdgeConnection.class);
  /** Enrolling takes the hub a few writes: the node's own hello timeout is 15 s. */
  private static final long HELLO_RELAY_TIMEOUT_MS = 20_000;
  /** A control (cancel, config update, rekey) is answered at once by the node. */
  private static final long CONTROL_TIMEOUT_MS = 60_000;
  /** How long past its own timeout a call's answer is still carried back (the caller may have asked GET /calls/{id}). */
  private static final long CALL_GRACE_MS = 60_000;
  private static final int MAX_REFUSED = 50;
  private static final DeliveryOptions LOCAL = new DeliveryOptions().setLocalOnly(true);

  private final Vertx vertx;
  private final EdgePeer peer;
  private final String memberId;
  private final NodeKeyring keyring;
  private final Consumer<EdgeConnection> onProven;
  /**
   * Fault switch {@link FaultSwitch#EDGE_TRUSTS_LINKS}: every link's heartbeats, events, chunks and goodbyes are relayed
   * as they come, hello or not, whoever they name, proven or not (a plain event-bus bridge: what the hello-first and
   * own-and-proven rules replaced). EdgeEndpointTest shows the attacks it lets in.
   */
  private final boolean trustsLinks;
  private final List<MessageConsumer<Object>> consumers = new ArrayList<>();
  private volatile String nodeId;
  private int refused;
  /** The fleet was told this link is lost ({@code node.link_lost}): its calls in flight end by the hubs' notice. */
  private boolean lossAnnounced;

  EdgeConnection(Vertx vertx, EdgePeer peer, String memberId, NodeKeyring keyring, Consumer<EdgeConnection> onProven,
                 FaultSwitches switches) {
    this.vertx = vertx;
    this.peer = peer;
    this.memberId = memberId;
    this.keyring = keyring;
    this.onProven = onProven;
    this.trustsLinks = switches.on(FaultSwitch.EDGE_TRUSTS_LINKS);
  }

  /** Starts reading the link; it is closed unless a hello through it is accepted within {@code helloWithinMs}. */
  void start(long helloWithinMs) {
    peer.onMessage(this::onMessage).start();
    peer.welcome(new JsonObject().put("member", memberId));
    long timer = vertx.setTimer(helloWithinMs, t -> {
      if (nodeId == null) {
        peer.close("no accepted hello within " + helloWithinMs + " ms (edge.helloWithinSeconds)");
      }
    });
    peer.closed().onComplete(ar -> {
      vertx.cancelTimer(timer);
      consumers.forEach(MessageConsumer::unregister);
      consumers.clear();
    });
  }

  /** The node this link proved to be, or null. */
  String nodeId() {
    return nodeId;
  }

  EdgePeer peer() {
    return peer;
  }

  private void onMessage(EdgePeer.Incoming in) {
    String address = in.address();
    if (Addresses.HUB_REGISTER.equals(address) && in.body() instanceof NodeHello hello && in.wantsReply()) {
      hello(in, hello);
      return;
    }
    if (trustsLinks) {
      if (!forward(in)) {
        refuse(in, FailureCode.FORBIDDEN, "not relayed for an edge node: " + address);
      }
      return;
    }
    if (nodeId == null) {
      refuse(in, FailureCode.UNAUTHORIZED, "say hello first: this link has not proved which node it is");
      peer.close("a message before an accepted hello (" + address + ")");
      return;
    }
    String named = namedNode(in);
    if (named != null && !nodeId.equals(named)) {
      refuse(in, FailureCode.FORBIDDEN, "this link belongs to node " + nodeId + ", not " + named);
      peer.close("a message in another node's name (" + named + ", on " + address + ")");
    } else if (named == null || !proven(in) || !forward(in)) {
      refuse(in, FailureCode.FORBIDDEN, "not relayed for an edge node: " + address + " (or not proven by node "
        + nodeId + ")");
      if (++refused > MAX_REFUSED) {
        peer.close("more than " + MAX_REFUSED + " messages refused");
      }
    }
  }

  /** The node a message of a kind this endpoint relays says it comes from; null for any other message. */
  private static String namedNode(EdgePeer.Incoming in) {
    return switch (in.address()) {
      case Addresses.HEARTBEAT -> in.body() instanceof Heartbeat hb ? hb.nodeId() : null;
      case Addresses.EVENTS -> in.body() instanceof JsonObject event ? event.getString("nodeId") : null;
      case Addresses.HUB_GOODBYE -> in.body() instanceof JsonObject bye && in.wantsReply() ? bye.getString("nodeId") : null;
      default -> in.body() instanceof StreamChunk chunk && in.address().equals(Addresses.callStream(chunk.callId()))
        ? in.headers().get(NodeProofs.NODE_HEADER) : null;
    };
  }

  /** Whether the link's node proved the message with its credential (the same checks the cluster's hubs make). */
  private boolean proven(EdgePeer.Incoming in) {
    if (in.body() instanceof Heartbeat hb) {
      return keyring.verify(nodeId, NodeProofs.HEARTBEAT, hb.toJson(), hb.proof());
    } else if (in.body() instanceof StreamChunk chunk) {
      // a call this hub sent elsewhere is not this node's to answer (one sent by another hub is checked there)
      String target = CallTargets.nodeOf(vertx, chunk.callId());
      return (target == null || VerifiedFacts.fromItsNode(vertx, chunk.callId(), nodeId))
        && keyring.verify(nodeId, NodeProofs.CHUNK, chunk.toJson(), in.headers().get(NodeProofs.PROOF_HEADER));
    } else if (in.body() instanceof JsonObject json) {
      boolean event = Addresses.EVENTS.equals(in.address());
      return (!event || VerifiedFacts.nodeMaySay(json))
        && keyring.verify(nodeId, event ? NodeProofs.EVENT : NodeProofs.GOODBYE, json, json.getString("proof"));
    }
    return false;
  }

  /** Into the cluster as a cluster node would have sent it; false for a message of no kind this endpoint relays. */
  private boolean forward(EdgePeer.Incoming in) {
    String address = in.address();
    DeliveryOptions asSent = new DeliveryOptions().setHeaders(in.headers());
    if (Addresses.HUB_GOODBYE.equals(address) && in.wantsReply()) {
      relay(in, vertx.eventBus().request(address, in.body(), new DeliveryOptions(LOCAL).setHeaders(in.headers())));
    } else if (Addresses.HEARTBEAT.equals(address) || Addresses.EVENTS.equals(address)) {
      vertx.eventBus().publish(address, in.body(), asSent);
    } else if (in.body() instanceof StreamChunk chunk && address.equals(Addresses.callStream(chunk.callId()))) {
      vertx.eventBus().send(address, chunk, asSent);
    } else {
      return false;
    }
    return true;
  }

  private void hello(EdgePeer.Incoming in, NodeHello hello) {
    if (nodeId != null && !nodeId.equals(hello.nodeId())) {
      refuse(in, FailureCode.FORBIDDEN, "this link belongs to node " + nodeId + ", not " + hello.nodeId());
      return;
    }
    if (!memberId.equals(hello.memberId())) {
      refuse(in, FailureCode.BAD_REQUEST, "the hello names member " + hello.memberId() + ", but this link is held by"
        + " member " + memberId + " (the welcome names it)");
      return;
    }
    vertx.eventBus().request(Addresses.HUB_REGISTER, hello, new DeliveryOptions(LOCAL).setHeaders(in.headers())
        .addHeader(RegistryBus.EDGE_HELLO, "true").setSendTimeout(HELLO_RELAY_TIMEOUT_MS))
      .onSuccess(reply -> {
        if (nodeId == null) {
          proven(hello.nodeId());
        }
        peer.reply(in.replyId(), reply.body(), reply.headers());
      })
      .onFailure(err -> {
        FailureCode code = FailureCode.of(err);
        peer.fail(in.replyId(), code.code, err.getMessage());
        if (nodeId == null && (code == FailureCode.UNAUTHORIZED || code == FailureCode.FORBIDDEN)) {
          peer.close("hello refused for node " + hello.nodeId() + ": " + err.getMessage());
        }
      });
  }

  private void proven(String node) {
    nodeId = node;
    if (!peer.isOpen()) {
      // closed while its hello was being answered: nothing to serve here (consumers now would outlive the link), but the
      // registry has just tracked the node on this member, so the endpoint tells the fleet the link is gone
      LOG.info("edge link closed before its hello was answered [node: {}, link: {}]", node, peer.peer());
      onProven.accept(this);
      return;
    }
    LOG.info("edge node proved itself [node: {}, link: {}]", node, peer.peer());
    peer.trust();
    consumers.add(vertx.eventBus().consumer(Addresses.nodeCall(node), this::toNode));
    consumers.add(vertx.eventBus().consumer(Addresses.nodeControl(node), this::toNode));
    onProven.accept(this);
  }

  /** A call or control for the node: across the link, its answer back as the reply. */
  private void toNode(Message<Object> msg) {
    if (msg.replyAddress() == null) {
      peer.send(msg.address(), msg.body(), msg.headers());
      return;
    }
    long timeout = msg.body() instanceof ToolCall call && call.timeoutMs() > 0 ? call.timeoutMs() + CALL_GRACE_MS
      : CONTROL_TIMEOUT_MS;
    peer.request(msg.address(), msg.body(), msg.headers(), timeout)
      .onSuccess(answer -> msg.reply(answer.body(), new DeliveryOptions().setHeaders(answer.headers())))
      .onFailure(err -> {
        // a call cut by the announced loss: its sender ends it by the lost-call rule (503 outcome unknown) when its
        // monitor hears the notice; a bare failure from here would reach it first and be dropped as unproven (500)
        if (!(lossAnnounced && msg.body() instanceof ToolCall)) {
          msg.fail(FailureCode.of(err).code, err.getMessage());
        }
      });
  }

  /** The endpoint told the fleet this link is lost (before its pending asks fail: the link's close runs it first). */
  void lossAnnounced() {
    lossAnnounced = true;
  }

  private void relay(EdgePeer.Incoming in, Future<Message<Object>> answer) {
    answer.onSuccess(reply -> peer.reply(in.replyId(), reply.body(), reply.headers()))
      .onFailure(err -> peer.fail(in.replyId(), FailureCode.of(err).code, err.getMessage()));
  }

  private void refuse(EdgePeer.Incoming in, FailureCode code, String why) {
    LOG.warn("edge message refused [link: {}, node: {}, address: {}, reason: {}]", peer.peer(), nodeId, in.address(), why);
    if (in.wantsReply()) {
      peer.fail(in.replyId(), code.code, why);
    }
  }
}
