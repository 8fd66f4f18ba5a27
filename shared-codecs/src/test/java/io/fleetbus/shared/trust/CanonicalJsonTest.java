package io.fleetbus.shared.trust;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import org.junit.jupiter.api.Test;

class CanonicalJsonTest {

  @Test
  void keyOrderAndSpacingDoNotMatter() {
    JsonObject a = new JsonObject("{\"b\": 1, \"a\": {\"y\": [1, 2], \"x\": \"é\"}}");
    JsonObject b = new JsonObject().put("a", new JsonObject().put("x", "é").put("y", new JsonArray().add(1).add(2))).put("b", 1);
    assertEquals(CanonicalJson.of(a), CanonicalJson.of(b));
    assertEquals("{\"a\":{\"x\":\"é\",\"y\":[1,2]},\"b\":1}", CanonicalJson.of(a));
  }

  @Test
  void theWireDoesNotChangeTheDigest() {
    JsonObject sent = new JsonObject().put("i", 7).put("l", 1L << 40).put("f", 0.1f).put("d", 1.0e10).put("neg", -0.5)
      .put("bytes", new byte[] {1, 2, 3}).put("at", Instant.ofEpochSecond(5)).put("nil", (Object) null)
      .put("text", "line\n\"quoted\" \u2028").put("arr", new JsonArray().add(true).addNull().add(3.25f));
    JsonObject received = new JsonObject(sent.toBuffer());
    assertEquals(CanonicalJson.of(sent), CanonicalJson.of(received));
    assertEquals(CanonicalJson.sha256(sent), CanonicalJson.sha256(received));
  }

  @Test
  void anyChangedValueChangesTheDigest() {
    JsonObject args = new JsonObject().put("command", "echo hi").put("timeout_seconds", 25);
    assertNotEquals(CanonicalJson.sha256(args), CanonicalJson.sha256(args.copy().put("command", "echo hj")));
    assertNotEquals(CanonicalJson.sha256(args), CanonicalJson.sha256(args.copy().put("timeout_seconds", "25")));
    assertEquals(64, CanonicalJson.sha256(args).length());
  }
}
