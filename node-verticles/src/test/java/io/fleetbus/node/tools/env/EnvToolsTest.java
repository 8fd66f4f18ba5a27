package io.fleetbus.node.tools.env;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.tools.TestNode;
import io.fleetbus.node.tools.sandbox.PathScope;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.trust.SecretMasker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Map;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

class EnvToolsTest {
  @TempDir
  Path dir;

  @Test
  void agentEnvironmentIsMaskedAndFilteredByKeys() throws Exception {
    NodeSettings s = TestNode.settings("unprivileged", dir, null);
    GetEnvTool tool = new GetEnvTool(PathScope.of(s), () -> Map.of("HOME", "/home/a", "DB_PASSWORD", "pw",
      "AUTH_HEADER", "Bearer abcdefghijklmnop"));
    JsonObject r = TestNode.run(tool, "get_env", new JsonObject(), s);
    JsonObject vars = r.getJsonObject("variables");
    assertEquals("/home/a", vars.getString("HOME"));
    assertEquals(SecretMasker.MASK, vars.getString("DB_PASSWORD"));
    assertEquals(SecretMasker.MASK, vars.getString("AUTH_HEADER"));
    assertEquals(new JsonArray().add("AUTH_HEADER").add("DB_PASSWORD"), r.getJsonArray("masked"));
    JsonObject one = TestNode.run(tool, "get_env", new JsonObject().put("keys", new JsonArray().add("HOME")), s);
    assertEquals(1, one.getInteger("count"));
  }

  @Test
  void realEnvironmentNeverShowsPathLikeSecrets() throws Exception {
    NodeSettings s = TestNode.settings("unprivileged", dir, null);
    JsonObject r = TestNode.run(new GetEnvTool(PathScope.of(s)), "get_env", new JsonObject(), s);
    assertEquals(System.getenv("PATH"), r.getJsonObject("variables").getString("PATH"));
  }

  @Test
  void unmaskedNeedsTheNodesConsent() throws Exception {
    NodeSettings s = TestNode.settings("sudo", dir, null);
    GetEnvTool tool = new GetEnvTool(PathScope.of(s), () -> Map.of("TOKEN", "t"));
    FleetException e = assertThrows(FleetException.class,
      () -> TestNode.run(tool, "get_env", new JsonObject().put("maskSecrets", false), s));
    assertEquals(FailureCode.FORBIDDEN, e.code());
    NodeSettings allowing = TestNode.settings("sudo", dir, new JsonObject().put("env", new JsonObject().put("allowUnmasked", true)));
    assertEquals("t", TestNode.run(tool, "get_env", new JsonObject().put("maskSecrets", false), allowing)
      .getJsonObject("variables").getString("TOKEN"));
  }

  @Test
  void dotEnvFileInsideTheSandboxIsParsedAndMasked() throws Exception {
    NodeSettings s = TestNode.settings("unprivileged", dir, null);
    PathScope scope = PathScope.of(s);
    Path env = Files.writeString(s.tools().sandboxDir().resolve(".env"),
      "# comment\nexport APP_PORT=8080\nSECRET_KEY=\"abc\"\nNAME='x y' \nEMPTY=\nMODE=dev # trailing\n");
    JsonObject vars = TestNode.run(new GetEnvTool(scope), "get_env", new JsonObject().put("source", env.toString()), s)
      .getJsonObject("variables");
    assertEquals("8080", vars.getString("APP_PORT"));
    assertEquals(SecretMasker.MASK, vars.getString("SECRET_KEY"));
    assertEquals("x y", vars.getString("NAME"));
    assertEquals("", vars.getString("EMPTY"));
    assertEquals("dev", vars.getString("MODE"));
    Path outside = Files.writeString(dir.resolve("outside.env"), "A=1\n");
    assertEquals(FailureCode.FORBIDDEN, assertThrows(FleetException.class, () -> TestNode.run(new GetEnvTool(scope),
      "get_env", new JsonObject().put("source", outside.toString()), s)).code());
  }

  @Test
  void agentConfigShowsSettingsWithSecretsMasked() throws Exception {
    NodeSettings s = TestNode.settings("sudo", dir, new JsonObject().put("commands", new JsonObject()
      .put("rules", new JsonObject().put("curl", new JsonObject().put("apiToken", "tok-123")))));
    JsonObject conf = TestNode.run(new AgentConfigTool("9.9"), "get_agent_config", new JsonObject(), s);
    assertEquals("sudo", conf.getString("capabilityTier"));
    assertEquals("9.9", conf.getString("agentVersion"));
    assertEquals(30, conf.getJsonObject("tools").getJsonObject("power").getInteger("countdownSeconds"));
    assertFalse(conf.encode().contains("tok-123"), conf.encode());
    assertTrue(conf.getJsonArray("allowlist").contains("echo"));
  }
}
