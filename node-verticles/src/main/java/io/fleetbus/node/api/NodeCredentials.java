package io.fleetbus.node.api;

import io.fleetbus.node.trust.NodeTrust;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.msg.Heartbeat;
import io.fleetbus.shared.msg.NodeHello;
import io.fleetbus.shared.msg.NodeRegistered;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import java.io.IOException;
import java.nio.file.Path;

/**
 * The node's public trust surface, for a program that speaks for a node without running the agent (the
 * benchmark's simulated nodes): enroll with a one-time token, prove hellos, heartbeats and results with the
 * node's key, and check a hub's signed call before acting on it. The same code the agent uses; its
 * internals ({@code io.fleetbus.node.trust}) stay private to the node. Methods marked blocking do file
 * I/O: call them on a worker.
 */
public final class NodeCredentials {
  private final NodeTrust trust;

  private NodeCredentials(NodeTrust trust) {
    this.trust = trust;
  }

  /** A hello on its way, proved; keep it to check the hub's answer with {@link #accept}. */
  public static final class SignedHello {
    private final NodeTrust.Hello sent;

    private SignedHello(NodeTrust.Hello sent) {
      this.sent = sent;
    }

    /** What to send to {@link io.fleetbus.shared.bus.Addresses#HUB_REGISTER}. */
    public NodeHello hello() {
      return sent.hello();
    }
  }

  /** Reads (or starts) the node's identity under {@code dataDir}; {@code enrollmentToken} may be null once enrolled. Blocking. */
  public static NodeCredentials load(String nodeId, Path dataDir, String enrollmentToken, ToolCatalog catalog)
    throws IOException {
    return new NodeCredentials(NodeTrust.load(nodeId, dataDir, enrollmentToken, catalog));
  }

  public String nodeId() {
    return trust.nodeId();
  }

  public boolean enrolled() {
    return trust.enrolled();
  }

  /** The hello with its proof: by credential when enrolled, else by enrollment token. */
  public SignedHello hello(NodeHello base) {
    return new SignedHello(trust.hello(base));
  }

  /** Checks the hub's answer (an impostor's does not verify) and keeps what enrollment hands over. Blocking. */
  public void accept(SignedHello sent, NodeRegistered reply) throws IOException {
    trust.accept(sent.sent, reply);
  }

  public Heartbeat prove(Heartbeat heartbeat) {
    return trust.prove(heartbeat);
  }

  public ToolResult prove(ToolResult result) {
    return trust.prove(result);
  }

  /**
   * For a speaker that will answer no call (the bench's heartbeat-only nodes): closes the call journal, so it holds no
   * open file; a tier 2-3 call admitted afterwards fails. Blocking.
   */
  public void answerNoCalls() throws IOException {
    trust.admission().closeJournal();
  }

  /** The proven goodbye a stopping node sends the hubs (they mark it offline at once). */
  public io.vertx.core.json.JsonObject goodbye(String instanceId) {
    return trust.goodbye(instanceId);
  }

  /**
   * Checks a call the way the node does before running it: the hub's signature, freshness, replay (a
   * call of tier 2 or more is journaled once). Fails with 401/409 and a reason. Blocking.
   */
  public void admit(ToolCall call) throws IOException {
    admit(call, null);
  }

  /** The same for node process {@code ownInstance}, which takes calls signed with its call key too. */
  public void admit(ToolCall call, String ownInstance) throws IOException {
    trust.admission().admit(trust.openCall(call), ownInstance);
  }
}
