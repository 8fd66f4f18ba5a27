package io.fleetbus.node.tools.sandbox;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

class SecretMaskTest {
  @Test
  void namesThatLookSecretAreMasked() {
    for (String n : new String[] {"DB_PASSWORD", "api_key", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "private_pem",
      "SERVICE_CREDENTIALS", "passwd"}) {
      assertEquals(SecretMask.MASK, SecretMask.value(n, "x"), n);
    }
    assertEquals("/usr/bin", SecretMask.value("PATH", "/usr/bin"));
  }

  @Test
  void valuesThatLookLikeTokensAreMaskedWhateverTheirName() {
    assertEquals(SecretMask.MASK, SecretMask.value("HEADER", "Bearer abcdefghijklmnop"));
    assertEquals(SecretMask.MASK, SecretMask.value("X", "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhIn0.sig"));
    assertEquals(SecretMask.MASK, SecretMask.value("X", "ghp_" + "a".repeat(36)));
    assertEquals(SecretMask.MASK, SecretMask.value("X", "AKIAABCDEFGHIJKLMNOP"));
  }

  @Test
  void logLinesKeepTheirShapeButNotTheSecret() {
    assertEquals("login user=ann password=***MASKED*** ok", SecretMask.line("login user=ann password=s3cr3t ok"));
    assertEquals("Authorization: Bearer ***MASKED***", SecretMask.line("Authorization: Bearer abc.def-ghi_jkl"));
    assertEquals("{\"api_key\": \"***MASKED***\"}", SecretMask.line("{\"api_key\": \"12345678\"}"));
    assertEquals("nothing to hide here", SecretMask.line("nothing to hide here"));
  }

  @Test
  void jsonTreesAreMaskedDeeply() {
    JsonObject in = new JsonObject().put("name", "n1").put("auth", new JsonObject().put("token", "t").put("user", "u"))
      .put("list", new JsonArray().add("Bearer abcdefghijkl")).put("enrollmentKey", 42).put("allowUnmasked", false);
    JsonObject out = SecretMask.json(in);
    assertEquals("n1", out.getString("name"));
    assertEquals(SecretMask.MASK, out.getJsonObject("auth").getString("token"));
    assertEquals("u", out.getJsonObject("auth").getString("user"));
    assertEquals(SecretMask.MASK, out.getJsonArray("list").getString(0));
    assertEquals(SecretMask.MASK, out.getString("enrollmentKey"));
    assertFalse(out.getBoolean("allowUnmasked"));
    assertTrue(in.getJsonObject("auth").getString("token").equals("t"), "the input is not changed");
  }
}
