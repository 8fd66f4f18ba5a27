package io.fleetbus.node.trust;

import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.fault.FaultSwitch;
import io.fleetbus.shared.msg.Control;
import io.fleetbus.shared.msg.Heartbeat;
import io.fleetbus.shared.msg.NodeHello;
import io.fleetbus.shared.msg.NodeRegistered;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.fleetbus.shared.trust.Digests;
import io.fleetbus.shared.trust.NodeProofs;
import io.fleetbus.shared.trust.SealedBox;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Path;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's side of trust: enrolls with a one-time token (the token never crosses the bus: the hello
 * proves it, the hub's answer comes sealed under it), keeps the credential and the hub's key, proves
 * hellos, heartbeats and results with the credential's hash, takes a new credential on rekey, and
 * owns the gate every call passes ({@link CallAdmission}). One per node process.
 */
public final class NodeTrust {
  private static final Logger LOG = LoggerFactory.getLogger(NodeTrust.class);
  public static final String ENROLL = "enroll";
  public static final String CREDENTIAL = "credential";

  private final String nodeId;
  private final Path trustDir;
  private final String enrollmentToken;
  private final CallAdmission admission;
  private volatile NodeIdentity identity;
  private volatile DirectiveVerifier verifier;
  private volatile byte[] proofKey;
  /** What the next hello tries after a refusal: 0 the credential, 1 the one before the last rekey, 2 the token. */
  private volatile int fallback;

  /** A hello on its way: what it proved with, to check the answer against. */
  public record Hello(NodeHello hello, String method, String nonce, byte[] key) {
  }

  private NodeTrust(String nodeId, Path trustDir, String enrollmentToken, NodeIdentity identity, CallJournal journal,
                    ToolCatalog catalog) {
    this.nodeId = nodeId;
    this.trustDir = trustDir;
    this.enrollmentToken = enrollmentToken == null || enrollmentToken.isBlank() ? null : enrollmentToken.strip();
    this.admission = new CallAdmission(this, journal, catalog);
    use(identity);
  }

  /** Reads the identity and opens the journal under {@code <dataDir>/trust} (blocking). */
  public static NodeTrust load(String nodeId, Path dataDir, String enrollmentToken, ToolCatalog catalog) throws IOException {
    Path dir = dataDir.resolve("trust");
    NodeIdentity identity = NodeIdentity.load(dir);
    if (identity != null && !nodeId.equals(identity.nodeId())) {
      LOG.warn("stored identity is for node '{}', not '{}': enrolling again [node: {}]", identity.nodeId(), nodeId, nodeId);
      identity = null;
    }
    return new NodeTrust(nodeId, dir, enrollmentToken, identity, CallJournal.open(dir), catalog);
  }

  public String nodeId() {
    return nodeId;
  }

  public boolean enrolled() {
    return identity != null;
  }

  public DirectiveVerifier verifier() {
    return verifier;
  }

  public CallAdmission admission() {
    return admission;
  }

  /** The hello with its proof: by credential when enrolled, else by enrollment token (or none: the hub says why). */
  public Hello hello(NodeHello base) {
    NodeIdentity id = identity;
    String nonce = Digests.base64Url(Digests.randomBytes(16));
    JsonObject auth = new JsonObject().put("sentAt", System.currentTimeMillis()).put("nonce", nonce);
    if (base.auth().getString("bus") != null) {
      auth.put("bus", base.auth().getString("bus")); // where its event bus listens: proved with the rest (issue 32)
    }
    boolean byToken = (id == null || fallback == 2) && enrollmentToken != null;
    if (byToken) {
      byte[] key = NodeProofs.keyOf(enrollmentToken);
      NodeHello hello = base.withAuth(auth.put("method", ENROLL).put("tokenId", NodeProofs.tokenId(key)));
      return new Hello(proved(hello, key, NodeProofs.ENROLL), ENROLL, nonce, key);
    }
    if (id == null) {
      return new Hello(base.withAuth(auth.put("method", "none")), "none", nonce, null);
    }
    String credential = fallback == 1 && id.previousCredential() != null ? id.previousCredential() : id.credential();
    byte[] key = NodeProofs.keyOf(credential);
    NodeHello hello = base.withAuth(auth.put("method", CREDENTIAL));
    return new Hello(proved(hello, key, NodeProofs.HELLO), CREDENTIAL, nonce, key);
  }

  private static NodeHello proved(NodeHello hello, byte[] key, String purpose) {
    String proof = NodeProofs.prove(key, purpose, NodeProofs.helloContent(hello));
    return hello.withAuth(hello.auth().copy().put("proof", proof));
  }

  /** Checks the hub's answer (no impostor's verifies); at enrollment keeps the credential and hub key it seals. Blocking. */
  public void accept(Hello sent, NodeRegistered reply) throws IOException {
    JsonObject content = NodeProofs.registeredContent(nodeId, sent.hello().instanceId(), sent.nonce(), reply);
    if (ENROLL.equals(sent.method())) {
      JsonObject opened;
      try {
        opened = SealedBox.open(sent.key(), "enroll", NodeProofs.enrollContext(nodeId, sent.hello().instanceId(),
          sent.nonce()), reply.credential());
      } catch (IllegalArgumentException e) {
        throw FailureCode.UNAUTHORIZED.exception("the enrollment answer did not come from a hub that holds our token: "
          + e.getMessage());
      }
      String credential = opened.getString("credential");
      if (credential == null || !NodeProofs.verify(NodeProofs.keyOf(credential), NodeProofs.REGISTERED, content, reply.proof())) {
        throw FailureCode.UNAUTHORIZED.exception("the enrollment answer is incomplete or its proof does not verify");
      }
      NodeIdentity enrolled = new NodeIdentity(nodeId, credential, null, opened.getString("hubPublicKey"),
        System.currentTimeMillis());
      enrolled.save(trustDir);
      use(enrolled);
      fallback = 0;
      LOG.info("enrolled with the hub: credential and hub key stored [node: {}, file: {}]", nodeId,
        trustDir.resolve(NodeIdentity.FILE));
      return;
    }
    if (!NodeProofs.verify(sent.key(), NodeProofs.REGISTERED, content, reply.proof())) {
      throw FailureCode.UNAUTHORIZED.exception("the answer to our hello does not prove it came from the hub that"
        + " enrolled this node (a cluster member posing as a hub?)");
    }
    if (fallback == 1 && identity.previousCredential() != null) {
      NodeIdentity back = identity.fallenBack();
      back.save(trustDir);
      use(back);
      LOG.warn("the hub still knows the credential from before the last rekey: using it again [node: {}]", nodeId);
    }
    if (reply.hubPublicKey() != null && !reply.hubPublicKey().equals(identity.hubPublicKey())) {
      LOG.warn("the hub presented another directive key than at enrollment; keeping the enrolled one [node: {}]", nodeId);
    }
    fallback = 0;
  }

  /** After a refused hello: what to prove with next time. Returns a note for the log. */
  public String refused(Hello sent, int failureCode) {
    if (failureCode != FailureCode.UNAUTHORIZED.code) {
      return "";
    }
    NodeIdentity id = identity;
    if (CREDENTIAL.equals(sent.method()) && fallback == 0 && id != null && id.previousCredential() != null) {
      fallback = 1;
      return "; next hello tries the credential from before the last rekey";
    }
    if (!ENROLL.equals(sent.method()) && enrollmentToken != null) {
      fallback = 2;
      return "; next hello enrolls with the configured enrollment token";
    }
    fallback = 0;
    return enrollmentToken == null && id == null
      ? "; give this node an enrollment token (FLEETBUS_ENROLLMENT_TOKEN or conf enrollmentToken)" : "";
  }

  /** A goodbye the hub can tell from one sent by another member (which would take this node offline). */
  public JsonObject goodbye(String instanceId) {
    JsonObject body = new JsonObject().put("nodeId", nodeId).put("instanceId", instanceId)
      .put("sentAt", System.currentTimeMillis());
    byte[] key = proofKey;
    return key == null ? body : body.put("proof", NodeProofs.prove(key, NodeProofs.GOODBYE, body.copy()));
  }

  public Heartbeat prove(Heartbeat hb) {
    byte[] key = proofKey;
    return key == null ? hb
      : hb.withProof(NodeProofs.prove(key, NodeProofs.HEARTBEAT, NodeProofs.without(hb.toJson(), "proof")));
  }

  /** The call with its arguments opened if the hub sealed them (CallSeal); 401 when this credential cannot open them. */
  public ToolCall openCall(ToolCall call) {
    if (!io.fleetbus.shared.trust.CallSeal.isSealed(call.args())) {
      return call;
    }
    byte[] key = proofKey;
    if (key == null) {
      throw FailureCode.UNAUTHORIZED.exception("node " + nodeId + " is not enrolled yet and runs nothing");
    }
    try {
      return io.fleetbus.shared.trust.CallSeal.openArgs(key, call);
    } catch (IllegalArgumentException e) {
      throw FailureCode.UNAUTHORIZED.exception("the arguments of call " + call.callId() + " do not open with this node's"
        + " credential (" + e.getMessage() + ")");
    }
  }

  /** The (proved) result with its data sealed for the hub, under this node's credential. */
  public ToolResult sealResult(ToolResult result) {
    byte[] key = proofKey;
    return key == null ? result : io.fleetbus.shared.trust.CallSeal.sealData(key, result);
  }

  /**
   * A stream chunk of this node as it goes out: its data sealed for the hub, with this node's id and its proof over
   * the sealed chunk (plain and unproved before enrollment; plain with {@code -Dfleetbus.fault.noCallSealing}).
   */
  public io.fleetbus.shared.trust.CallSeal.Outgoing chunkOut(io.fleetbus.shared.msg.StreamChunk chunk) {
    byte[] key = proofKey;
    io.vertx.core.eventbus.DeliveryOptions options = new io.vertx.core.eventbus.DeliveryOptions();
    if (key == null) {
      return new io.fleetbus.shared.trust.CallSeal.Outgoing(chunk, options);
    }
    io.fleetbus.shared.msg.StreamChunk out = chunk;
    if (!FaultSwitch.NO_CALL_SEALING.on()) {
      out = io.fleetbus.shared.trust.CallSeal.sealChunk(key, chunk);
      options.addHeader(io.fleetbus.shared.trust.CallSeal.SEALED_HEADER, "1");
    }
    return new io.fleetbus.shared.trust.CallSeal.Outgoing(out, options.addHeader(NodeProofs.NODE_HEADER, nodeId)
      .addHeader(NodeProofs.PROOF_HEADER, NodeProofs.prove(key, NodeProofs.CHUNK, out.toJson())));
  }

  /** An event this node publishes, with its proof (the hub relays to frontends only events it can verify). */
  public JsonObject proveEvent(JsonObject event) {
    return proved(event, NodeProofs.EVENT);
  }

  /** A dry check's answer with this node's proof (its own purpose: it cannot pass for a call's result). */
  public JsonObject proveDryRun(JsonObject answer) {
    return proved(answer, NodeProofs.DRY_RUN);
  }

  /** A refuse_call's answer with this node's proof (its own purpose: the journal's word on a decision). */
  public JsonObject proveDecision(JsonObject answer) {
    return proved(answer, NodeProofs.DECISION);
  }

  private JsonObject proved(JsonObject message, String purpose) {
    byte[] key = proofKey;
    JsonObject bare = NodeProofs.without(message, "proof");
    return key == null ? bare : bare.put("proof", NodeProofs.prove(key, purpose, bare.copy()));
  }

  public ToolResult prove(ToolResult result) {
    byte[] key = proofKey;
    ToolResult bare = result.withProof(null);
    return key == null ? bare
      : bare.withProof(NodeProofs.prove(key, NodeProofs.RESULT, NodeProofs.without(bare.toJson(), "proof")));
  }

  /**
   * Takes the new credential of a (verified) rekey instruction: opens the box with the current or the
   * previous credential, stores it, and answers with a proof made with the new one. Blocking.
   */
  public JsonObject rekey(Control control) throws IOException {
    NodeIdentity id = identity;
    String nonce = control.body().getString("nonce");
    String box = control.body().getString("box");
    if (id == null || nonce == null || box == null) {
      throw FailureCode.BAD_REQUEST.exception("rekey needs an enrolled node, a nonce and a sealed credential");
    }
    String context = nodeId + "|" + nonce;
    JsonObject opened = null;
    for (String c : new String[] {id.credential(), id.previousCredential()}) {
      if (c != null && opened == null) {
        try {
          opened = SealedBox.open(NodeProofs.keyOf(c), "rekey", context, box);
        } catch (IllegalArgumentException e) {
          // try the other credential
        }
      }
    }
    String fresh = opened == null ? null : opened.getString("credential");
    if (fresh == null) {
      throw FailureCode.UNAUTHORIZED.exception("the new credential was not sealed with this node's credential");
    }
    NodeIdentity rotated = id.rotated(fresh);
    rotated.save(trustDir);
    use(rotated);
    LOG.info("credential rotated [node: {}]", nodeId);
    JsonObject ack = new JsonObject().put("nodeId", nodeId).put("nonce", nonce);
    return ack.copy().put("ack", NodeProofs.prove(NodeProofs.keyOf(fresh), NodeProofs.REKEY_ACK, ack));
  }

  private void use(NodeIdentity id) {
    NodeIdentity before = identity;
    // a rekey keeps the hub key: keep the verifier too, so its memory of used nonces survives
    if (id == null || before == null || !id.hubPublicKey().equals(before.hubPublicKey()) || verifier == null) {
      verifier = id == null ? null : new DirectiveVerifier(nodeId, id.hubPublicKey());
    }
    identity = id;
    proofKey = id == null ? null : NodeProofs.keyOf(id.credential());
  }
}
