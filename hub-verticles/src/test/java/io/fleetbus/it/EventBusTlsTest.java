package io.fleetbus.it;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertNotEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.msg.Control;
import io.fleetbus.testsupport.FleetProcess;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Tag;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/**
 * Hub and node with event-bus mutual TLS (throw-away certificates made with keytool): calls work; a
 * member whose certificate the fleet does not trust joins Hazelcast but exchanges no message, while a
 * member holding the fleet's certificate does (so the test can tell the two apart).
 */
@Timeout(300)
@Tag("cluster")
class EventBusTlsTest {
  private static final String PASSWORD = "changeit-" + System.nanoTime();

  private static void keytool(Path dir, String... args) throws Exception {
    Path java = Path.of(ProcessHandle.current().info().command().orElseThrow());
    List<String> cmd = new ArrayList<>(List.of(java.resolveSibling("keytool").toString()));
    cmd.addAll(List.of(args));
    Process p = new ProcessBuilder(cmd).directory(dir.toFile()).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes());
    if (!p.waitFor(60, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new AssertionError("keytool " + String.join(" ", args) + " failed: " + out);
    }
  }

  private static void selfSigned(Path dir, String name) throws Exception {
    keytool(dir, "-genkeypair", "-alias", name, "-keyalg", "EC", "-groupname", "secp256r1", "-dname", "CN=" + name,
      "-ext", "SAN=ip:127.0.0.1,dns:localhost", "-validity", "2", "-storetype", "PKCS12", "-keystore", name + ".p12",
      "-storepass", PASSWORD, "-keypass", PASSWORD);
    keytool(dir, "-exportcert", "-alias", name, "-keystore", name + ".p12", "-storepass", PASSWORD, "-file", name + ".crt");
  }

  private static JsonObject tls(Path dir, String keyStore) {
    return new JsonObject().put("enabled", true).put("keyStore", dir.resolve(keyStore).toString())
      .put("keyStorePassword", PASSWORD).put("trustStore", dir.resolve("trust.p12").toString())
      .put("trustStorePassword", PASSWORD);
  }

  /** 0 when the node answered at all (here: 401, unsigned), else how the request failed. */
  private static String exchange(RogueMember member) throws Exception {
    try {
      member.vertx().eventBus().request(Addresses.nodeControl("n1"), new Control(Control.CANCEL, new JsonObject()),
        new DeliveryOptions().setSendTimeout(4000)).toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
      return "answered";
    } catch (ExecutionException e) {
      return e.getCause() instanceof ReplyException re ? re.failureType() + ":" + re.failureCode() : e.getCause().toString();
    }
  }

  @Test
  void fleetWorksOverMutualTlsAndAnUntrustedMemberExchangesNothing() throws Exception {
    try (TestFleet fleet = new TestFleet(1000)) {
      Path certs = fleet.dir.resolve("certs");
      java.nio.file.Files.createDirectories(certs);
      selfSigned(certs, "fleet");
      selfSigned(certs, "rogue");
      keytool(certs, "-importcert", "-noprompt", "-alias", "fleet", "-file", "fleet.crt", "-keystore", "trust.p12",
        "-storetype", "PKCS12", "-storepass", PASSWORD);
      Map<String, String> env = Map.of("FLEETBUS_TLS_KEYSTORE", certs.resolve("fleet.p12").toString(),
        "FLEETBUS_TLS_KEYSTORE_PASSWORD", PASSWORD, "FLEETBUS_TLS_TRUSTSTORE", certs.resolve("trust.p12").toString(),
        "FLEETBUS_TLS_TRUSTSTORE_PASSWORD", PASSWORD);

      FleetProcess hub = fleet.startHub("hub", env);
      hub.awaitLine("event bus TLS on \\[clientAuth: required, trustAll: false\\]", Duration.ofSeconds(5));
      FleetProcess node = fleet.startNode("n1", "sudo", new JsonObject(), env);
      hub.awaitLine(TestFleet.onlineLine("n1"), TestFleet.START);
      node.awaitLine("event bus TLS on", Duration.ofSeconds(5));
      assertEquals(200, fleet.post("/api/v1/nodes/n1/tools/get_agent_health", "{}").status());

      try (RogueMember untrusted = RogueMember.join(fleet, tls(certs, "rogue.p12"))) {
        String outcome = exchange(untrusted);
        System.out.println("untrusted member's request ended as " + outcome);
        assertNotEquals("RECIPIENT_FAILURE:401", outcome, "the node must never have seen the message");
        assertNotEquals("answered", outcome);
        assertFalse(node.tail(10_000).contains("control refused"), "nothing reached the node: " + outcome);
        untrusted.vertx().eventBus().publish(Addresses.HEARTBEAT, new JsonObject().put("nodeId", "n1"));
      }
      try (RogueMember trusted = RogueMember.join(fleet, tls(certs, "fleet.p12"))) {
        assertEquals("RECIPIENT_FAILURE:401", exchange(trusted), "with the fleet's certificate the message gets through"
          + " (and is still refused: it is not signed)");
        node.awaitLine("control refused \\[node: n1, type: cancel", Duration.ofSeconds(5));
      }
      assertTrue(fleet.get("/api/v1/nodes/n1").body().getBoolean("online"));
    }
  }
}
