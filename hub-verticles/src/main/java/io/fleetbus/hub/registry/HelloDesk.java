package io.fleetbus.hub.registry;

import io.fleetbus.hub.enrollment.EnrollmentService;
import io.fleetbus.hub.enrollment.HelloAdmission;
import io.fleetbus.hub.monitor.MonitorService;
import io.fleetbus.hub.monitor.Tracking;
import io.fleetbus.hub.store.GroupCommit;
import io.fleetbus.hub.store.Transactions;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetReplies;
import io.fleetbus.shared.fault.FaultSwitch;
import io.fleetbus.shared.msg.NodeHello;
import io.fleetbus.shared.msg.NodeRegistered;
import io.fleetbus.shared.trust.NodeProofs;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The registry's door for nodes, the two addresses that cross the cluster: a hello is admitted by enrollment first (an
 * unproven hello learns nothing, not even a 409), then checked against the node already known (409 for a second
 * process with a live node's id), stored (group commit: answered once its batch is on disk), tracked by the monitor,
 * shared with the other hubs and answered with the node's epoch and heartbeat interval, proved with the node's key. A goodbye goes to the monitor, which checks its
 * proof. Runs on the registry verticle's event loop.
 */
record HelloDesk(Context context, NodeTable table, GroupCommit<Transactions.Step<NodeStore>> writes,
                 SharedRegistrations shared, EnrollmentService enrollment, MonitorService monitor) {
  private static final Logger LOG = LoggerFactory.getLogger(HelloDesk.class);

  /** Fault switch for tests only (-Dfleetbus.fault.onlineAtHello=true): a node that enrolls is listed online at once, as before issue 21. */
  private static final boolean ONLINE_AT_HELLO = FaultSwitch.ONLINE_AT_HELLO.on();

  /** Listens for hellos and goodbyes; complete once both consumers are registered. */
  Future<Void> open() {
    var bus = context.owner().eventBus();
    return Future.all(
      bus.<NodeHello>consumer(Addresses.HUB_REGISTER, this::onHello).completion(),
      bus.<JsonObject>consumer(Addresses.HUB_GOODBYE, this::onGoodbye).completion()).mapEmpty();
  }

  private void onHello(Message<NodeHello> msg) {
    NodeHello hello = msg.body();
    enrollment.admit(hello)
      .map(admitted -> {
        checkHello(hello);
        return admitted;
      })
      .compose(admitted -> register(hello, admitted, msg.headers().get(RegistryBus.EDGE_HELLO) != null ? "edge" : "cluster"))
      .onSuccess(msg::reply)
      .onFailure(err -> {
        LOG.warn("hello refused [node: {}, code: {}, reason: {}]", hello.nodeId(), FailureCode.of(err).code, err.getMessage());
        FleetReplies.fail(msg, err);
      });
  }

  private void checkHello(NodeHello hello) {
    if (hello.nodeId() == null || hello.instanceId() == null) {
      throw FailureCode.BAD_REQUEST.exception("hello needs nodeId and instanceId");
    }
    NodeRecord existing = table.get(hello.nodeId());
    if (existing != null && existing.online() && existing.instanceId() != null
      && !existing.instanceId().equals(hello.instanceId())) {
      throw FailureCode.CONFLICT.exception("node id '" + hello.nodeId() + "' is already connected from another"
        + " process (online since its last heartbeat at " + existing.lastSeen() + "); stop that process or wait"
        + " until the hub declares it offline");
    }
  }

  private Future<NodeRegistered> register(NodeHello hello, HelloAdmission admitted, String transport) {
    NodeRecord old = table.get(hello.nodeId());
    long now = System.currentTimeMillis();
    // a node that enrolls with this hello can run calls only once it has opened the answer and stored its
    // credential: it is listed online with its first (proved) heartbeat, as the monitor decides, not now
    boolean sameProcess = old != null && old.online() && hello.instanceId().equals(old.instanceId());
    boolean online = sameProcess || !admitted.enrolled() || ONLINE_AT_HELLO;
    NodeRecord rec = new NodeRecord(hello.nodeId(), hello.instanceId(), hello.platform(), hello.capabilityTier(),
      hello.labels(), hello.agentVersion(), new JsonArray(hello.tools()), old == null ? 1 : old.epoch() + 1,
      old == null ? now : old.firstSeen(), now, online, old == null ? 0 : old.lastHeartbeat(),
      old == null ? null : old.metrics(), hello.confinement());
    table.put(rec);
    long interval = table.intervalOf(rec.nodeId());
    // answered once the batch holding it is committed (group commit: many hellos, one transaction)
    return writes.commit(store -> {
      store.upsert(rec);
      store.appendEvent(rec.nodeId(), now, "registered", "epoch " + rec.epoch());
    }).recover(err -> {
      LOG.error("cannot store node [node: {}]", rec.nodeId(), err);
      return Future.failedFuture(FailureCode.TOOL_FAILED.exception("hub could not store the registration; try again"));
    }).map(v -> {
      RegistryVerticle.told(monitor.track(new Tracking(rec.nodeId(), rec.instanceId(), hello.memberId(), interval,
        admitted.enrolled() && !ONLINE_AT_HELLO)), "track", rec.nodeId());
      LOG.info("node registered [node: {}, epoch: {}, tier: {}, platform: {}]", rec.nodeId(), rec.epoch(),
        rec.capabilityTier(), rec.platform());
      String bus = hello.auth().getString("bus");
      table.pin(rec.nodeId(), hello.memberId(), transport, bus);
      shared.share(context, rec, hello.memberId(), bus, transport, interval, null);
      return answer(hello, admitted, rec.epoch(), interval);
    });
  }

  /** The node's epoch and interval (with its credential, sealed for it, when it enrolled), proved with its key. */
  private static NodeRegistered answer(NodeHello hello, HelloAdmission admitted, long epoch, long interval) {
    NodeRegistered answer = new NodeRegistered(epoch, interval, admitted.sealedCredential(), admitted.hubPublicKey());
    String proof = NodeProofs.prove(admitted.key(), NodeProofs.REGISTERED, NodeProofs.registeredContent(hello.nodeId(),
      hello.instanceId(), hello.auth().getString("nonce"), answer));
    return new NodeRegistered(answer.epoch(), answer.heartbeatIntervalMs(), answer.credential(), answer.hubPublicKey(),
      proof);
  }

  private void onGoodbye(Message<JsonObject> msg) {
    String nodeId = msg.body().getString("nodeId");
    NodeRecord rec = table.get(nodeId);
    if (rec == null || rec.instanceId() == null || !rec.instanceId().equals(msg.body().getString("instanceId"))) {
      msg.fail(FailureCode.NOT_FOUND.code, "no connected node " + nodeId + " with that instance");
      return;
    }
    // the monitor checks the goodbye's proof (and warns when it does not verify): another member must not take a node
    // offline
    monitor.goodbye(nodeId, msg.body());
    msg.reply(new JsonObject().put("ok", true));
  }
}
