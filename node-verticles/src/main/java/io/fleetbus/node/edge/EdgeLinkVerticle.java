package io.fleetbus.node.edge;

import io.fleetbus.node.agent.HubView;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.edge.EdgePeer;
import io.fleetbus.shared.edge.TlsWarmUp;
import io.fleetbus.shared.msg.ToolCall;
import io.vertx.core.Future;
import io.vertx.core.MultiMap;
import io.vertx.core.VerticleBase;
import io.vertx.core.eventbus.DeliveryContext;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetClient;
import io.vertx.core.net.NetClientOptions;
import io.vertx.core.net.NetSocket;
import io.vertx.core.net.TrustOptions;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * An edge node's one link to its fleet (issue 20): a TLS connection to a hub's edge endpoint, the hub's certificate
 * pinned. The node's verticles use their (unclustered) event bus as a cluster node's do: what they send to the hubs
 * ({@link Addresses#isHubBound}) is taken off the bus here and crosses the link — an ask's answer or failure comes back
 * to its asker — and the hub's calls and controls for this node arrive here and are asked on the local bus. While no
 * link is up, asks to the hubs fail at once (503) and the rest is dropped, as on a cluster with no hub. A lost link is
 * tried again on the next hub of the list after a random pause within {@link EdgeNodeSettings#relinkSpreadMs()} (a
 * dead hub's thousands of nodes spread their TLS handshakes over that time instead of one instant), each hub of the
 * list once, then with backoff up to {@value #MAX_BACKOFF_MS} ms, each pause drawn between half and all of it. A link
 * that goes silent (no answer to a ping in time) counts as lost.
 */
public final class EdgeLinkVerticle extends VerticleBase implements HubView {
  private static final Logger LOG = LoggerFactory.getLogger(EdgeLinkVerticle.class);
  private static final long MAX_BACKOFF_MS = 4000;
  private static final long ASK_TIMEOUT_MS = 60_000;
  private static final long CALL_GRACE_MS = 60_000;

  private final EdgeNodeSettings settings;
  private final String nodeId;
  private final EdgePeer.Limits limits;
  private final List<Runnable> greeters = new CopyOnWriteArrayList<>();
  private volatile EdgePeer peer;
  private volatile String memberId;
  private NetClient client;
  private int nextHub;
  /** The link whose hub accepted this node's hello (until then a link carries nothing but the hello). */
  private volatile EdgePeer accepted;
  private long backoffMs;
  private long pinger = -1;
  private boolean stopping;

  public EdgeLinkVerticle(EdgeNodeSettings settings, String nodeId, EdgePeer.Limits limits) {
    this.settings = settings;
    this.nodeId = nodeId;
    this.limits = limits;
  }

  @Override
  public Future<?> start() {
    client = vertx.createNetClient(clientOptions(settings));
    vertx.eventBus().addOutboundInterceptor(this::outbound);
    // the JVM's first TLS context, built on a worker so that the first connect does not build it on the event loop
    vertx.executeBlocking(TlsWarmUp::once, false).onComplete(ar -> connect());
    return Future.succeededFuture();
  }

  /**
   * TLS to the hub whose certificate is pinned, the handshake's CPU work (key exchange, the pin's check) on a worker,
   * given {@link EdgeNodeSettings#handshakeSeconds}; a link silent for four pings is cut.
   */
  static NetClientOptions clientOptions(EdgeNodeSettings settings) {
    return new NetClientOptions().setSsl(true).setSslEngineOptions(TlsWarmUp.engine())
      .setTrustOptions(TrustOptions.wrap(new PinnedCertificate(settings.certSha256())))
      // the pin names the one certificate to accept: no CA, so no host name to check against one
      .setHostnameVerificationAlgorithm("")
      .setSslHandshakeTimeout(settings.handshakeSeconds()).setSslHandshakeTimeoutUnit(TimeUnit.SECONDS)
      .setConnectTimeout(5000).setIdleTimeout(settings.pingSeconds() * 4);
  }

  @Override
  public Future<?> stop() {
    stopping = true;
    EdgePeer current = peer;
    if (current != null) {
      current.close("the node stops");
    }
    return client.close();
  }

  @Override
  public String memberId() {
    return memberId;
  }

  @Override
  public int hubCount() {
    return peer != null && memberId != null ? 1 : 0;
  }

  @Override
  public Runnable onNewHub(Runnable greet) {
    greeters.add(greet);
    return () -> greeters.remove(greet);
  }

  /** Whether a hub's welcome came over a link that is still up. */
  public boolean linked() {
    return hubCount() > 0;
  }

  private void connect() {
    if (stopping) {
      return;
    }
    EdgeNodeSettings.Hub hub = settings.hubs().get(nextHub++ % settings.hubs().size());
    client.connect(hub.port(), hub.host())
      .onSuccess(socket -> linked(socket, hub))
      .onFailure(err -> {
        LOG.warn("cannot link to hub {} (trying {} in {} ms) [node: {}, reason: {}]", hub,
          settings.hubs().get(nextHub % settings.hubs().size()), backoffMs, nodeId, rootMessage(err));
        retry();
      });
  }

  private void retry() {
    vertx.setTimer(jittered(backoffMs), t -> connect());
    // every hub of the list once at once, then slower
    backoffMs = nextHub % settings.hubs().size() == 0 ? Math.min(Math.max(250, backoffMs * 2), MAX_BACKOFF_MS) : backoffMs;
  }

  /** A pause of about {@code ms}: between half and all of it (at least 1 ms), so that nodes in step drift apart. */
  static long jittered(long ms) {
    return ms <= 1 ? 1 : ms / 2 + ThreadLocalRandom.current().nextLong(ms - ms / 2 + 1);
  }

  /** The first try after a lost link: anywhere within the spread (at least 1 ms). */
  static long relinkPause(long spreadMs) {
    return 1 + ThreadLocalRandom.current().nextLong(Math.max(1, spreadMs));
  }

  private void linked(NetSocket socket, EdgeNodeSettings.Hub hub) {
    // the TLS handshake checked the hub's pinned certificate: its frames may be as large as a call's arguments
    EdgePeer link = new EdgePeer(vertx, socket, "hub " + hub, limits).trust();
    link.onMessage(in -> fromHub(link, in)).onWelcome(welcome -> welcomed(link, hub, welcome)).start();
    peer = link;
    pinger = vertx.setPeriodic(settings.pingSeconds() * 1000L, t -> ping(link));
    link.closed().onComplete(ar -> {
      vertx.cancelTimer(pinger);
      if (peer == link) {
        peer = null;
        memberId = null;
      }
      if (!stopping) {
        long pause = relinkPause(settings.relinkSpreadMs());
        LOG.warn("link to hub {} lost: linking again in {} ms [node: {}, reason: {}]", hub, pause, nodeId, ar.result());
        backoffMs = 0;
        vertx.setTimer(pause, t -> connect());
      }
    });
  }

  /**
   * A ping, and the link taken as cut when nothing at all is heard from the hub within {@code edge.pongWithinSeconds}
   * of its leaving (issue 35: a cut that closes nothing left the node on a dead connection; once healed, calls waited
   * for TCP's next retransmission, 23 s after a 60-s cut). Counted from when the ping was handed to the network, and any
   * bytes count as an answer (a large frame from the hub still arriving), so a busy link is not cut.
   */
  private void ping(EdgePeer link) {
    link.ping().onSuccess(v -> {
      long sent = System.nanoTime();
      vertx.setTimer(settings.pongWithinSeconds() * 1000L, t -> {
        if (link.isOpen() && !link.lastHeard().since(sent)) {
          link.close("nothing heard within " + settings.pongWithinSeconds() + " s of a ping (edge.pongWithinSeconds):"
            + " the link is taken as cut");
        }
      });
    });
  }

  private void welcomed(EdgePeer link, EdgeNodeSettings.Hub hub, JsonObject welcome) {
    memberId = welcome.getString("member");
    backoffMs = 0;
    LOG.info("linked to hub {} [node: {}, member: {}]", hub, nodeId, memberId);
    greeters.forEach(Runnable::run);
  }

  /** A call or control from the hub: asked on the local bus, its answer sent back. */
  private void fromHub(EdgePeer link, EdgePeer.Incoming in) {
    String address = in.address();
    if (!address.equals(Addresses.nodeCall(nodeId)) && !address.equals(Addresses.nodeControl(nodeId))) {
      if (in.wantsReply()) {
        link.fail(in.replyId(), FailureCode.FORBIDDEN.code, "node " + nodeId + " takes only its calls and controls");
      }
      return;
    }
    DeliveryOptions options = new DeliveryOptions().setHeaders(in.headers());
    if (!in.wantsReply()) {
      vertx.eventBus().send(address, in.body(), options);
      return;
    }
    long timeout = in.body() instanceof ToolCall call && call.timeoutMs() > 0 ? call.timeoutMs() + CALL_GRACE_MS
      : ASK_TIMEOUT_MS;
    vertx.eventBus().request(address, in.body(), options.setSendTimeout(timeout))
      .onSuccess(reply -> link.reply(in.replyId(), reply.body(), reply.headers()))
      .onFailure(err -> link.fail(in.replyId(), FailureCode.of(err).code, err.getMessage()));
  }

  /** What the node's verticles send to the hubs leaves through the link (it has no other way out). */
  private void outbound(DeliveryContext<Object> dc) {
    Message<Object> msg = dc.message();
    if (!Addresses.isHubBound(msg.address())) {
      dc.next();
      return;
    }
    EdgePeer link = peer;
    String replyTo = msg.replyAddress();
    boolean hello = Addresses.HUB_REGISTER.equals(msg.address());
    // a new link carries the hello first: the hub cuts a link that sends anything before its hello is accepted (a
    // heartbeat due just after a relink did, and cost the node another relink)
    if (link == null || memberId == null || !hello && accepted != link) {
      if (replyTo != null) {
        answerLocally(replyTo, new ReplyException(ReplyFailure.NO_HANDLERS, FailureCode.NO_ELIGIBLE_NODE.code,
          link == null || memberId == null ? "no link to a hub yet" : "the hub has not accepted this node's hello yet"),
          null);
      }
      return;
    }
    if (replyTo != null) {
      link.request(msg.address(), msg.body(), msg.headers(), ASK_TIMEOUT_MS)
        .onSuccess(answer -> {
          if (hello) {
            accepted = link;
          }
          answerLocally(replyTo, answer.body(), answer.headers());
        })
        .onFailure(err -> answerLocally(replyTo, err instanceof ReplyException re ? re
          : new ReplyException(ReplyFailure.RECIPIENT_FAILURE, FailureCode.of(err).code, err.getMessage()), null));
    } else if (dc.send()) {
      link.send(msg.address(), msg.body(), msg.headers());
    } else {
      link.publish(msg.address(), msg.body(), msg.headers());
    }
  }

  /** The innermost message of a failure (a refused certificate says why only at the bottom of the chain). */
  private static String rootMessage(Throwable err) {
    String message = err.getMessage();
    for (Throwable t = err.getCause(); t != null && t != t.getCause(); t = t.getCause()) {
      if (t.getMessage() != null) {
        message = t.getMessage();
      }
    }
    return message;
  }

  /** Hands an answer (or a {@link ReplyException}) to the local asker waiting at {@code replyTo}. */
  private void answerLocally(String replyTo, Object body, MultiMap headers) {
    vertx.runOnContext(v -> vertx.eventBus().send(replyTo, body,
      headers == null ? new DeliveryOptions() : new DeliveryOptions().setHeaders(headers)));
  }
}
