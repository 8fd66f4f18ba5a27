package io.fleetbus.hub.enrollment;

import io.fleetbus.hub.enrollment.NodeKeyring;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.fault.FaultSwitch;
import io.fleetbus.shared.msg.Heartbeat;
import io.fleetbus.shared.msg.StreamChunk;
import io.fleetbus.shared.trust.CanonicalJson;
import io.fleetbus.shared.trust.Digests;
import io.fleetbus.shared.trust.NodeProofs;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryContext;
import io.vertx.core.eventbus.impl.clustered.ClusteredMessage;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Frontends hear only facts the hub can check (issue 15, part 4). Every consumer of {@code fleet.events} and
 * {@code fleet.heartbeat} on a hub — the WebSocket API, the SockJS and TCP bridges, the dashboard, the site log, the
 * monitor — gets a message that came over the cluster only when it is proven: a heartbeat or a node's event by the
 * node's credential (HMAC, checked against the hub's keyring), another hub's event by the fleet's hub key (an HMAC the
 * hubs add as they publish, keyed from the store key every hub of the fleet holds). Anything else a cluster member
 * publishes there — a forged heartbeat, a made-up {@code node.offline} — is dropped before any handler runs
 * ({@code unverified message dropped [...]} at WARN, once per kind; {@link #dropped()} counts them).
 * {@code -Dfleetbus.fault.rawFactsToFrontends=true} switches the check off (the behaviour before).
 * <p>A proof counts only for what its maker may say (issue 32): a node's for its own {@code process.*} and
 * {@code job.*} events and for output of a call this hub sent to that very node ({@link CallTargets}); approvals,
 * calls and node states are the hubs' word ({@code -Dfleetbus.fault.unboundFacts=true}: any proven fact passes). A
 * hub's own events never cross the cluster in clear: see {@link HubEventChannel}.
 */
public final class VerifiedFacts {
  private static final Logger LOG = LoggerFactory.getLogger(VerifiedFacts.class);
  /** Header carrying a hub's proof over an event it publishes. */
  static final String HUB_PROOF = "fb-hub-proof";
  private static final String PURPOSE = "hub-event";
  private static final String BRIDGE_PREFIX = "fleet.bridge.";
  private static final String CALL_PREFIX = "fleet.call.";
  private static final String STREAM_SUFFIX = ".stream";

  /** Types of event a node may prove about itself: its managed processes and its jobs (the rest are the hubs' word). */
  private static final java.util.List<String> NODE_FACTS = java.util.List.of("process.", "job.");

  private final Vertx vertx;
  private final byte[] eventKey;
  private final NodeKeyring keyring;
  private final HubEventChannel peers;
  private final AtomicLong dropped = new AtomicLong();
  private final Map<String, Boolean> warned = new ConcurrentHashMap<>();

  private VerifiedFacts(Vertx vertx, byte[] storeKey, NodeKeyring keyring) {
    this.vertx = vertx;
    this.eventKey = Digests.derive(storeKey, "fleetbus hub events");
    this.keyring = keyring;
    this.peers = new HubEventChannel(storeKey);
  }

  /**
   * Installs the checks on this hub's event bus; completes once {@code keyring} (shared with the frontends, which
   * open the chunks checked here) follows the enrollment verticle.
   */
  public static Future<VerifiedFacts> install(Vertx vertx, byte[] storeKey, NodeKeyring keyring) {
    VerifiedFacts facts = new VerifiedFacts(vertx, storeKey, keyring);
    vertx.eventBus().addOutboundInterceptor(facts::outbound);
    if (!FaultSwitch.RAW_FACTS_TO_FRONTENDS.on()) {
      vertx.eventBus().addInboundInterceptor(facts::inbound);
    }
    var relay = vertx.eventBus().<Object>consumer(Addresses.PEER_EVENTS, facts::fromPeer);
    return relay.completion().compose(v -> facts.keyring.follow(vertx)).map(facts);
  }

  /** Messages dropped because they could not be checked. */
  public long dropped() {
    return dropped.get();
  }

  private String hubProof(JsonObject event) {
    return Digests.base64Url(Digests.hmac(eventKey, PURPOSE + "\n" + CanonicalJson.of(event)));
  }

  /**
   * This hub's own events (whoever on the hub publishes them on {@code fleet.events}) go to its own listeners and,
   * sealed, to the fleet's other hubs ({@link HubEventChannel}): never in clear to the cluster.
   * {@code -Dfleetbus.fault.clearHubEvents=true}: published to the cluster in clear with the hubs' proof (as before).
   */
  private void outbound(DeliveryContext<Object> dc) {
    if (Addresses.EVENTS.equals(dc.message().address()) && dc.body() instanceof JsonObject event
      && !(dc.message() instanceof ClusteredMessage<?, ?> cm && cm.isFromWire())
      && !dc.message().headers().contains(HubEventChannel.LOCAL_HEADER)) {
      if (!FaultSwitch.CLEAR_HUB_EVENTS.on()) {
        peers.publish(vertx, event);
        return; // not sent as it was: it went out in the two forms above
      }
      dc.message().headers().set(HUB_PROOF, hubProof(event));
    }
    dc.next();
  }

  /** Another hub's event: opened and republished to this hub's own listeners; one that does not open is dropped. */
  private void fromPeer(io.vertx.core.eventbus.Message<Object> msg) {
    if (!(msg instanceof ClusteredMessage<?, ?> cm && cm.isFromWire())) {
      return; // this hub's own, already delivered locally
    }
    JsonObject event;
    try {
      event = peers.open(msg.body() instanceof JsonObject j ? j : new JsonObject(), System.currentTimeMillis());
    } catch (IllegalArgumentException e) {
      drop(Addresses.PEER_EVENTS, msg.body() instanceof JsonObject j ? j.getString("type") : "?", null);
      return;
    }
    vertx.eventBus().publish(Addresses.EVENTS, event, new io.vertx.core.eventbus.DeliveryOptions().setLocalOnly(true)
      .addHeader(HubEventChannel.LOCAL_HEADER, "1").addHeader(Addresses.RELAYED_HEADER, "1"));
  }

  /** Whether a node may say this about itself: an event about its processes or jobs (never approvals, calls, nodes). */
  public static boolean nodeMaySay(JsonObject event) {
    String type = event.getString("type", "");
    return FaultSwitch.UNBOUND_FACTS.on() || NODE_FACTS.stream().anyMatch(type::startsWith);
  }

  /** Whether a chunk of call {@code callId} proven by {@code nodeId} comes from the node this hub sent the call to. */
  public static boolean fromItsNode(Vertx vertx, String callId, String nodeId) {
    return FaultSwitch.UNBOUND_FACTS.on() || nodeId != null && nodeId.equals(CallTargets.nodeOf(vertx, callId));
  }

  private void inbound(DeliveryContext<Object> dc) {
    if (!(dc.message() instanceof ClusteredMessage<?, ?> cm) || !cm.isFromWire()) {
      dc.next();
      return;
    }
    String address = dc.message().address();
    // the message's body, decoded (the context's body() of a message from the wire is still the wire form)
    Object body = dc.message().body();
    if (Addresses.HEARTBEAT.equals(address)) {
      if (body instanceof Heartbeat hb && proven(hb.proof(),
        () -> keyring.verify(hb.nodeId(), NodeProofs.HEARTBEAT, hb.toJson(), hb.proof()))) {
        dc.next();
      } else {
        drop(address, "heartbeat", body instanceof Heartbeat hb ? hb.nodeId() : null);
      }
    } else if (Addresses.EVENTS.equals(address)) {
      JsonObject event = body instanceof JsonObject j ? j : null;
      String byHub = dc.message().headers().get(HUB_PROOF);
      boolean ok = event != null && (byHub != null ? proven(byHub, () -> Digests.sameBytes(
        Digests.fromBase64Url(byHub), Digests.hmac(eventKey, PURPOSE + "\n" + CanonicalJson.of(event))))
        : nodeMaySay(event) && proven(event.getString("proof"), () -> keyring.verify(event.getString("nodeId"),
          NodeProofs.EVENT, event, event.getString("proof"))));
      if (ok) {
        dc.next();
      } else {
        drop(address, event == null ? "?" : event.getString("type"), event == null ? null : event.getString("nodeId"),
          event != null && byHub == null && !nodeMaySay(event) ? "a node may prove only its own process and job events"
          : null);
      }
    } else if (address.startsWith(CALL_PREFIX) && address.endsWith(STREAM_SUFFIX)) {
      // a call's output: only its node's proved chunks, for this very call (issue 15, part 2)
      String node = dc.message().headers().get(NodeProofs.NODE_HEADER);
      String proof = dc.message().headers().get(NodeProofs.PROOF_HEADER);
      if (body instanceof StreamChunk chunk && address.equals(Addresses.callStream(chunk.callId()))
        && fromItsNode(vertx, chunk.callId(), node) && proven(proof, () -> keyring.verify(node, NodeProofs.CHUNK, chunk.toJson(), proof))) {
        dc.next();
      } else {
        drop(address, "chunk", node, body instanceof StreamChunk c && !fromItsNode(vertx, c.callId(), node)
          ? "not the node the call was sent to" : null);
      }
    } else if (address.startsWith(BRIDGE_PREFIX)) {
      // the bridges' own addresses: only this hub publishes there (locally); from the cluster they are forgeries
      drop(address, "bridge", null);
    } else {
      dc.next();
    }
  }

  /** Checked for every delivery (each handler's is intercepted): a cache keyed by the proof would let a copied proof
   *  vouch for another body. */
  private static boolean proven(String proof, java.util.function.BooleanSupplier check) {
    if (proof == null) {
      return false;
    }
    try {
      return check.getAsBoolean();
    } catch (IllegalArgumentException e) {
      return false;
    }
  }

  private void drop(String address, String kind, String nodeId) {
    drop(address, kind, nodeId, null);
  }

  private void drop(String address, String kind, String nodeId, String why) {
    dropped.incrementAndGet();
    String reason = why != null ? why : nodeId != null && !keyring.knows(nodeId) ? "unknown or revoked node"
      : "no valid proof from the node or a hub of this fleet";
    // once per kind of forgery (a flood must not flood the log); the count keeps the rest
    if (warned.size() < 1000 && warned.putIfAbsent(address + "|" + kind + "|" + nodeId + "|" + reason, Boolean.TRUE) == null) {
      LOG.warn("unverified message dropped [address: {}, type: {}, node: {}, reason: {}]", address, kind, nodeId, reason);
    }
  }
}
