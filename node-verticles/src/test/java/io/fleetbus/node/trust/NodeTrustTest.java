package io.fleetbus.node.trust;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;
import static org.junit.jupiter.api.Assertions.assertNull;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.msg.Control;
import io.fleetbus.shared.msg.Heartbeat;
import io.fleetbus.shared.msg.NodeHello;
import io.fleetbus.shared.msg.NodeRegistered;
import io.fleetbus.shared.msg.ToolResult;
import io.fleetbus.shared.trust.Digests;
import io.fleetbus.shared.trust.Ed25519Keys;
import io.fleetbus.shared.trust.NodeProofs;
import io.fleetbus.shared.trust.SealedBox;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node's half of enrollment and rekey against the hub's half built from the same shared helpers:
 * the token never appears in the hello, only its holder opens the answer, the credential is stored
 * owner-only, and proofs made afterwards verify with the hash the hub keeps.
 */
class NodeTrustTest {
  @TempDir
  Path data;
  private final String token = Digests.randomSecret("fbe_");
  private final String hubKey = Ed25519Keys.generatePem()[1];
  private final NodeHello base = new NodeHello("n1", "i1", "m1", "linux", "sudo", new JsonObject(), "0.1.0", List.of(), null);

  /** What the hub answers an enrollment hello with. */
  private NodeRegistered hubAnswer(NodeTrust.Hello sent, String credential, byte[] sealWith) {
    String sealed = SealedBox.seal(sealWith, "enroll", NodeProofs.enrollContext("n1", "i1", sent.nonce()),
      new JsonObject().put("credential", credential).put("hubPublicKey", hubKey));
    NodeRegistered bare = new NodeRegistered(1, 1000, sealed, hubKey);
    String proof = NodeProofs.prove(NodeProofs.keyOf(credential), NodeProofs.REGISTERED,
      NodeProofs.registeredContent("n1", "i1", sent.nonce(), bare));
    return new NodeRegistered(1, 1000, sealed, hubKey, proof);
  }

  @Test
  void enrollmentProvesTheTokenWithoutSendingItAndStoresTheCredentialPrivately() throws Exception {
    NodeTrust trust = NodeTrust.load("n1", data, token, ToolCatalog.load());
    NodeTrust.Hello sent = trust.hello(base);
    assertEquals("enroll", sent.method());
    assertFalse(sent.hello().toJson().encode().contains(token), "the token itself never crosses the bus");
    assertTrue(NodeProofs.verify(NodeProofs.keyOf(token), NodeProofs.ENROLL, NodeProofs.helloContent(sent.hello()),
      sent.hello().auth().getString("proof")));

    String credential = Digests.randomSecret("fbc_");
    FleetException impostor = assertThrows(FleetException.class,
      () -> trust.accept(sent, hubAnswer(sent, credential, NodeProofs.keyOf("not the token"))));
    assertTrue(impostor.getMessage().contains("does not come") || impostor.getMessage().contains("did not come"));
    assertFalse(trust.enrolled());

    trust.accept(sent, hubAnswer(sent, credential, NodeProofs.keyOf(token)));
    assertTrue(trust.enrolled());
    Path file = data.resolve("trust").resolve(NodeIdentity.FILE);
    assertEquals("rw-------", PosixFilePermissions.toString(Files.getPosixFilePermissions(file)));
    assertEquals(credential, new JsonObject(Files.readString(file)).getString("credential"));

    Heartbeat hb = trust.prove(new Heartbeat("n1", "i1", 1, 5, null, null));
    assertTrue(NodeProofs.verify(NodeProofs.keyOf(credential), NodeProofs.HEARTBEAT,
      NodeProofs.without(hb.toJson(), "proof"), hb.proof()));
    ToolResult r = trust.prove(ToolResult.ok("c1", "n1", new JsonObject().put("v", 0.5f), 2));
    assertTrue(NodeProofs.verify(NodeProofs.keyOf(credential), NodeProofs.RESULT,
      NodeProofs.without(new JsonObject(r.toJson().encode()), "proof"), r.proof()), "verifies after the wire too");

    NodeTrust restarted = NodeTrust.load("n1", data, token, ToolCatalog.load());
    assertEquals("credential", restarted.hello(base).method(), "a stored credential wins over the token");
  }

  @Test
  void rekeyTakesTheSealedCredentialAndFallsBackWhenTheHubNeverHeard() throws Exception {
    NodeTrust trust = NodeTrust.load("n1", data, token, ToolCatalog.load());
    NodeTrust.Hello sent = trust.hello(base);
    String first = Digests.randomSecret("fbc_");
    trust.accept(sent, hubAnswer(sent, first, NodeProofs.keyOf(token)));

    String second = Digests.randomSecret("fbc_");
    JsonObject body = new JsonObject().put("nonce", "n-1").put("box",
      SealedBox.seal(NodeProofs.keyOf(first), "rekey", "n1|n-1", new JsonObject().put("credential", second)));
    JsonObject ack = trust.rekey(new Control(Control.REKEY, body));
    assertTrue(NodeProofs.verify(NodeProofs.keyOf(second), NodeProofs.REKEY_ACK,
      new JsonObject().put("nodeId", "n1").put("nonce", "n-1"), ack.getString("ack")));
    NodeIdentity stored = NodeIdentity.load(data.resolve("trust"));
    assertEquals(second, stored.credential());
    assertEquals(first, stored.previousCredential());

    NodeTrust.Hello withNew = trust.hello(base);
    assertNotEquals("", trust.refused(withNew, 401), "a refused credential hello tries the previous credential next");
    NodeTrust.Hello withOld = trust.hello(base);
    assertTrue(NodeProofs.verify(NodeProofs.keyOf(first), NodeProofs.HELLO, NodeProofs.helloContent(withOld.hello()),
      withOld.hello().auth().getString("proof")));
    NodeRegistered bare = new NodeRegistered(2, 1000, null, hubKey);
    trust.accept(withOld, new NodeRegistered(2, 1000, null, hubKey, NodeProofs.prove(NodeProofs.keyOf(first),
      NodeProofs.REGISTERED, NodeProofs.registeredContent("n1", "i1", withOld.nonce(), bare))));
    assertEquals(first, NodeIdentity.load(data.resolve("trust")).credential());

    JsonObject badBox = new JsonObject().put("nonce", "n-2").put("box",
      SealedBox.seal(NodeProofs.keyOf("someone else"), "rekey", "n1|n-2", new JsonObject().put("credential", "x")));
    assertThrows(FleetException.class, () -> trust.rekey(new Control(Control.REKEY, badBox)));
  }

  /**
   * Issue 32, item 2: the hello carries where the node's event bus listens, under its proof: a member that rewrites
   * the address in transit (to its own event bus) breaks the proof, so the hub pins only the address the node proved.
   */
  @Test
  void theHelloProvesTheNodesEventBusAddress() throws Exception {
    NodeTrust trust = NodeTrust.load("n1", data, token, ToolCatalog.load());
    NodeTrust.Hello sent = trust.hello(base.withAuth(new JsonObject().put("bus", "10.0.0.7:41234")));
    assertEquals("10.0.0.7:41234", sent.hello().auth().getString("bus"));
    String proof = sent.hello().auth().getString("proof");
    assertTrue(NodeProofs.verify(NodeProofs.keyOf(token), NodeProofs.ENROLL, NodeProofs.helloContent(sent.hello()), proof));
    NodeHello moved = sent.hello().withAuth(sent.hello().auth().copy().put("bus", "10.0.0.66:5000"));
    assertFalse(NodeProofs.verify(NodeProofs.keyOf(token), NodeProofs.ENROLL, NodeProofs.helloContent(moved), proof));
  }

  @Test
  void withoutTokenOrCredentialTheHelloSaysSo() throws Exception {
    NodeTrust trust = NodeTrust.load("n1", data, null, ToolCatalog.load());
    NodeTrust.Hello sent = trust.hello(base);
    assertEquals("none", sent.method());
    assertNull(sent.hello().auth().getString("proof"));
    assertTrue(trust.refused(sent, 401).contains("FLEETBUS_ENROLLMENT_TOKEN"));
    assertNotNull(trust.admission());
    assertThrows(FleetException.class, () -> trust.admission().admit(
      new io.fleetbus.shared.msg.ToolCall("c", null, "a", List.of(), "get_system_info", new JsonObject(), "n1", null, 1, false, null)));
  }
}
