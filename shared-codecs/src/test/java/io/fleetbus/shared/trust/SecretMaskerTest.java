package io.fleetbus.shared.trust;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

class SecretMaskerTest {

  @Test
  void fieldsNamedLikeSecretsAreMaskedAtAnyDepth() {
    JsonObject args = new JsonObject().put("path", "/etc/app.conf").put("password", "hunter2")
      .put("env", new JsonObject().put("API_KEY", "k-123").put("HOME", "/root")).put("db_token", 42);
    JsonObject masked = SecretMasker.mask(args);
    assertEquals("/etc/app.conf", masked.getString("path"));
    assertEquals(SecretMasker.MASK, masked.getString("password"));
    assertEquals(SecretMasker.MASK, masked.getJsonObject("env").getString("API_KEY"));
    assertEquals("/root", masked.getJsonObject("env").getString("HOME"));
    assertEquals(SecretMasker.MASK, masked.getValue("db_token"));
    assertEquals("hunter2", args.getString("password"), "the input is not changed");
  }

  @Test
  void secretsInsideCommandLinesAndArgvAreMasked() {
    String masked = SecretMasker.mask("mysql --password hunter2 -h db PGPASSWORD=s3cret curl https://bob:pw9@host/x"
      + " -H 'Authorization: Bearer abc.def' eyJhbGciOi.eyJzdWIiOi.c2lnbmF0dXJl fbe_AAAAAAAAAAAAAAAAAAAAAAAAAA");
    for (String secret : new String[] {"hunter2", "s3cret", "pw9", "abc.def", "eyJhbGciOi", "fbe_AAAA"}) {
      assertFalse(masked.contains(secret), secret + " survived in: " + masked);
    }
    assertTrue(masked.startsWith("mysql --password "), masked);
    assertTrue(masked.contains("-h db"), masked);
    JsonArray argv = SecretMasker.mask(new JsonArray().add("--token").add("t0k3n").add("--verbose").add("x"));
    assertEquals(new JsonArray().add("--token").add(SecretMasker.MASK).add("--verbose").add("x"), argv);
  }

  @Test
  void whatMaskingFoundIsScrubbedFromFreeText() {
    java.util.Set<String> found = new java.util.HashSet<>();
    SecretMasker.mask(new JsonObject().put("command", "echo secret=Pw-1234").put("db_password", "hunter22"), found);
    assertTrue(found.containsAll(java.util.List.of("Pw-1234", "hunter22")), found.toString());
    assertEquals("denied: do not echo ***MASKED*** or ***MASKED***",
      SecretMasker.scrub("denied: do not echo Pw-1234 or hunter22", found));
  }

  // what node tools hand back

  @Test
  void namesThatLookSecretAreMasked() {
    for (String n : new String[] {"DB_PASSWORD", "api_key", "GITHUB_TOKEN", "AWS_SECRET_ACCESS_KEY", "private_pem",
      "SERVICE_CREDENTIALS", "passwd"}) {
      assertEquals(SecretMasker.MASK, SecretMasker.maskValue(n, "x"), n);
    }
    assertEquals("/usr/bin", SecretMasker.maskValue("PATH", "/usr/bin"));
  }

  @Test
  void valuesThatLookLikeTokensAreMaskedWhateverTheirName() {
    assertEquals(SecretMasker.MASK, SecretMasker.maskValue("HEADER", "Bearer abcdefghijklmnop"));
    assertEquals(SecretMasker.MASK, SecretMasker.maskValue("X", "eyJhbGciOiJFUzI1NiJ9.eyJzdWIiOiJhIn0.sig"));
    assertEquals(SecretMasker.MASK, SecretMasker.maskValue("X", "ghp_" + "a".repeat(36)));
    assertEquals(SecretMasker.MASK, SecretMasker.maskValue("X", "AKIAABCDEFGHIJKLMNOP"));
  }

  @Test
  void logLinesKeepTheirShapeButNotTheSecret() {
    assertEquals("login user=ann password=***MASKED*** ok", SecretMasker.maskLine("login user=ann password=s3cr3t ok"));
    assertEquals("Authorization: Bearer ***MASKED***", SecretMasker.maskLine("Authorization: Bearer abc.def-ghi_jkl"));
    assertEquals("{\"api_key\": \"***MASKED***\"}", SecretMasker.maskLine("{\"api_key\": \"12345678\"}"));
    assertEquals("nothing to hide here", SecretMasker.maskLine("nothing to hide here"));
  }

  @Test
  void jsonTreesAreMaskedDeeply() {
    JsonObject in = new JsonObject().put("name", "n1").put("auth", new JsonObject().put("token", "t").put("user", "u"))
      .put("list", new JsonArray().add("Bearer abcdefghijkl")).put("enrollmentKey", 42).put("allowUnmasked", false);
    JsonObject out = SecretMasker.maskTree(in);
    assertEquals("n1", out.getString("name"));
    assertEquals(SecretMasker.MASK, out.getJsonObject("auth").getString("token"));
    assertEquals("u", out.getJsonObject("auth").getString("user"));
    assertEquals(SecretMasker.MASK, out.getJsonArray("list").getString(0));
    assertEquals(SecretMasker.MASK, out.getString("enrollmentKey"));
    assertFalse(out.getBoolean("allowUnmasked"));
    assertTrue(in.getJsonObject("auth").getString("token").equals("t"), "the input is not changed");
  }
}
