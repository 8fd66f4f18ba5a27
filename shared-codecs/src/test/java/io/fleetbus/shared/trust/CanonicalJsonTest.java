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

  /**
   * The form must never change (nodes of an older version check what a newer hub signs): strings and keys as Jackson
   * writes them, keys in TreeMap order — checked against that very construction on random trees of tricky text.
   */
  @Test
  void sameTextAsJacksonAndATreeMapForAnyString() {
    java.util.Random random = new java.util.Random(17);
    String alphabet = "aZ09 _-./:\"\\\u0000\u0001\u001f\u007f\u0080é€\u2028\u2029\ud83d\ude00\ud800\t\n\r\b\f<>&'";
    for (int round = 0; round < 2000; round++) {
      JsonObject tree = new JsonObject();
      for (int k = 0; k < 1 + random.nextInt(5); k++) {
        Object value = random.nextBoolean() ? text(random, alphabet)
          : new JsonObject().put(text(random, alphabet), new JsonArray().add(text(random, alphabet)).add(k));
        tree.put(text(random, alphabet), value);
      }
      assertEquals(reference(tree), CanonicalJson.of(tree), tree.encode());
    }
  }

  private static String text(java.util.Random random, String alphabet) {
    StringBuilder b = new StringBuilder();
    for (int i = random.nextInt(6); i > 0; i--) {
      b.append(alphabet.charAt(random.nextInt(alphabet.length())));
    }
    return b.toString();
  }

  /** The canonical form as first written: a TreeMap per object, Jackson for every key and string. */
  private static String reference(Object value) {
    if (value instanceof JsonObject o) {
      StringBuilder b = new StringBuilder("{");
      new java.util.TreeMap<>(o.getMap()).forEach((k, v) -> b.append(b.length() > 1 ? "," : "")
        .append(io.vertx.core.json.Json.encode(k)).append(':').append(reference(v)));
      return b.append('}').toString();
    }
    if (value instanceof JsonArray a) {
      StringBuilder b = new StringBuilder("[");
      a.forEach(v -> b.append(b.length() > 1 ? "," : "").append(reference(v)));
      return b.append(']').toString();
    }
    return value instanceof String ? io.vertx.core.json.Json.encode(value) : String.valueOf(value);
  }
}
