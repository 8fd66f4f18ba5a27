package io.fleetbus.bench.sim;

import io.fleetbus.bench.http.HubClient;
import io.fleetbus.node.api.NodeCredentials;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.msg.NodeRegistered;
import io.vertx.core.Future;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import java.nio.file.Path;

/**
 * Brings one simulated node in the way a real node comes in: a one-time token from the hub's API (admin
 * token), the node's trust loaded under its own data folder, a hello proved with the token, and the
 * hub's sealed answer checked and kept. File I/O and key handling run on workers.
 */
final class NodeEnrollment {
  private static final int HELLO_ATTEMPTS = 4;
  private static final DeliveryOptions HELLO = new DeliveryOptions().setSendTimeout(30_000);

  private final Vertx vertx;
  private final HubClient hub;
  private final Path dataRoot;
  private final ToolCatalog catalog;
  private final String memberId;

  NodeEnrollment(Vertx vertx, HubClient hub, Path dataRoot, ToolCatalog catalog, String memberId) {
    this.vertx = vertx;
    this.hub = hub;
    this.dataRoot = dataRoot;
    this.catalog = catalog;
    this.memberId = memberId;
  }

  /**
   * Token, trust, then hello; sets {@code node.trust} and answers the hub's registration. A node that answers no call
   * keeps no call journal open (50,000 of them in one JVM would pass its open-file limit).
   */
  Future<NodeRegistered> enroll(SimulatedNode node, boolean answersCalls) {
    return enroll(node, answersCalls, Future::succeededFuture);
  }

  /**
   * As above, {@code beforeHello} run once the node's trust is loaded (an edge node links then, as a real one does:
   * its link is unproven only while its hello is answered, not while its token is fetched and its trust written).
   */
  Future<NodeRegistered> enroll(SimulatedNode node, boolean answersCalls,
                                java.util.function.Supplier<Future<Void>> beforeHello) {
    return hub.enrollmentToken(node.nodeId)
      .compose(token -> vertx.executeBlocking(() -> {
        NodeCredentials trust = NodeCredentials.load(node.nodeId, dataRoot.resolve(node.nodeId), token, catalog);
        if (!answersCalls) {
          trust.answerNoCalls();
        }
        return trust;
      }, false))
      .compose(trust -> {
        node.trust = trust;
        return hello(node, 1, beforeHello);
      });
  }

  /** An enrolled node says hello again (what every node does when a hub restarts or joins): same process, its proof. */
  Future<NodeRegistered> helloAgain(SimulatedNode node) {
    return hello(node, 1, Future::succeededFuture);
  }

  /**
   * Up to {@value #HELLO_ATTEMPTS} hellos, {@code beforeHello} run before each (an edge node's link, made again when the
   * last one was lost: on a loaded machine a handshake or a hello can outlast the hub's limits, and a real node relinks).
   */
  private Future<NodeRegistered> hello(SimulatedNode node, int attempt,
                                       java.util.function.Supplier<Future<Void>> beforeHello) {
    return beforeHello.get().compose(v -> helloOnce(node)).recover(err -> {
      if (attempt >= HELLO_ATTEMPTS) {
        return Future.failedFuture(err);
      }
      Promise<Void> pause = Promise.promise();
      vertx.setTimer(500L * attempt, t -> pause.complete());
      return pause.future().compose(v -> hello(node, attempt + 1, beforeHello));
    });
  }

  private Future<NodeRegistered> helloOnce(SimulatedNode node) {
    // an edge node names the member holding its link (the hub's welcome) and says hello over that link
    String member = node.link != null ? node.linkMember : memberId;
    NodeCredentials.SignedHello sent = node.trust.hello(node.hello(member));
    Future<NodeRegistered> answer = node.link != null
      ? node.link.request(Addresses.HUB_REGISTER, sent.hello(), null, 30_000).map(a -> (NodeRegistered) a.body())
      : vertx.eventBus().<NodeRegistered>request(Addresses.HUB_REGISTER, sent.hello(), HELLO).map(Message::body);
    return answer.compose(reg -> vertx.executeBlocking(() -> {
      node.trust.accept(sent, reg);
      return reg;
    }, false));
  }
}
