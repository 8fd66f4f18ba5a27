package io.fleetbus.hub.auth;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.node.trust.DirectiveVerifier;
import io.fleetbus.node.trust.InstanceKeys;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.fleetbus.shared.trust.CallKeys;
import io.fleetbus.shared.trust.Digests;
import io.fleetbus.shared.trust.NodeProofs;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * What trust costs per call, measured with the real keys and code: the hub signs, the node verifies,
 * the node proves its result and the hub checks it. Prints p50/p99 (target/surefire-reports/*-output.txt);
 * fails if signing plus verifying stops being cheap next to a cluster hop.
 */
class DirectiveCostTest {
  @TempDir
  Path dir;

  private interface Step {
    void run(int i);
  }

  /** Runs before the measured ones (numbered -1 and down): the code compiled, the caches filled. */
  private static final int WARM_UP = 1000;

  private static long[] measure(int n, Step step) {
    for (int i = 0; i < WARM_UP; i++) {
      step.run(-1 - i);
    }
    long[] ns = new long[n];
    for (int i = 0; i < n; i++) {
      long t0 = System.nanoTime();
      step.run(i);
      ns[i] = System.nanoTime() - t0;
    }
    Arrays.sort(ns);
    return new long[] {ns[n / 2] / 1000, ns[n * 99 / 100] / 1000};
  }

  @Test
  void signingAndCheckingACallCostsMicroseconds() throws Exception {
    HubKeys keys = HubKeys.loadOrCreate(dir);
    DirectiveSigner signer = keys.directiveSigner(30_000);
    DirectiveVerifier verifier = new DirectiveVerifier("n1", keys.directivePublicPem());
    int n = 1000; // the p50s asserted below, from 1000 runs each (3000 cost three times the CPU)
    ToolCall[] signed = new ToolCall[n + WARM_UP];
    long[] sign = measure(n, i -> signed[i < 0 ? n - 1 - i : i] = signer.sign(call(i), 1));
    long[] verify = measure(n, i -> verifier.verifyCall(signed[i < 0 ? n - 1 - i : i], System.currentTimeMillis()));
    byte[] key = NodeProofs.keyOf(Digests.randomSecret("fbc_"));
    ToolResult result = ToolResult.ok("c", "n1", new JsonObject().put("registered", true).put("epoch", 3)
      .put("heartbeatSeq", 120).put("hubMembers", 1).put("nodeId", "n1"), 2);
    long[] prove = measure(n, i -> NodeProofs.prove(key, NodeProofs.RESULT, result.toJson()));
    String proof = NodeProofs.prove(key, NodeProofs.RESULT, result.toJson());
    long[] check = measure(n, i -> NodeProofs.verify(key, NodeProofs.RESULT, result.toJson(), proof));
    // the same with a node process's call key (issue 17): an HMAC per call, the grant checked once
    String instance = InstanceKeys.newInstanceId();
    ToolCall[] keyed = new ToolCall[n + WARM_UP];
    long[] keyedSign = measure(n, i -> keyed[i < 0 ? n - 1 - i : i] = signer.sign(call(i), 1, instance));
    assertTrue(keyed[0].signature().indexOf(CallKeys.SEPARATOR) > 0, "a call to a keyed process carries its grant");
    long[] keyedVerify = measure(n, i -> verifier.verifyCall(keyed[i < 0 ? n - 1 - i : i], instance,
      System.currentTimeMillis()));
    System.out.printf("trust cost per call, us p50/p99: sign %d/%d, verify %d/%d, result proof %d/%d, proof check %d/%d;"
        + " with a call key: sign %d/%d, verify %d/%d%n", sign[0], sign[1], verify[0], verify[1], prove[0], prove[1],
      check[0], check[1], keyedSign[0], keyedSign[1], keyedVerify[0], keyedVerify[1]);
    assertTrue(sign[0] + verify[0] < 2000, "sign + verify p50 " + (sign[0] + verify[0]) + " us");
    assertTrue(keyedSign[0] + keyedVerify[0] < 500, "sign + verify with a call key p50 " + (keyedSign[0] + keyedVerify[0])
      + " us");
    assertTrue(prove[0] + check[0] < 500, "proofs p50 " + (prove[0] + check[0]) + " us");
  }

  private static ToolCall call(int i) {
    return new ToolCall("call-" + i, null, "alice", List.of("operator"), "get_agent_health", new JsonObject(), "n1", null,
      30_000, false, null);
  }
}
