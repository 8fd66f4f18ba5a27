package io.fleetbus.hub.authz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.hub.authz.HubClient.Reply;
import io.fleetbus.hub.fuzz.InProcessHub;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * A call refused before it reaches a node or approval (missing role, unknown tool, bad arguments) is in the audit
 * by the time its refusal is answered, over REST, WebSocket and MCP (issue 21: nothing answered goes unrecorded).
 */
@Timeout(60)
class RefusalsAuditedTest {
  @RegisterExtension
  static final InProcessHub hub = InProcessHub.perClass();
  static final HubClient client = new HubClient(hub);

  private static JsonArray refusalsOf(String subject) throws Exception {
    Reply r = client.rest(hub.token(subject, "admin"), "GET", "/api/v1/audit?principal=" + subject, null);
    assertEquals(200, r.status(), r.body());
    JsonArray out = new JsonArray();
    r.json().getJsonArray("records").stream().map(JsonObject.class::cast)
      .filter(e -> "refused".equals(e.getString("decision"))).forEach(out::add);
    return out;
  }

  @Test
  void everyRefusedCallIsAuditedBeforeItsAnswer() throws Exception {
    String viewer = hub.token("rita", "viewer");
    assertEquals(403, client.rest(viewer, "POST", "/api/v1/nodes/ghost/tools/run_command", "{\"command\":\"id\"}").status());
    assertEquals(404, client.rest(viewer, "POST", "/api/v1/nodes/ghost/tools/no_such_tool", "{}").status());
    assertEquals(400, client.rest(viewer, "POST", "/api/v1/nodes/ghost/tools/read_file", "{\"path\": 7}").status());
    HubClient.Socket ws = client.socket();
    ws.send(new JsonObject().put("type", "auth").put("token", viewer));
    ws.next("authenticated");
    ws.send(new JsonObject().put("type", "call").put("id", "x").put("tool", "write_file").put("node", "ghost")
      .put("args", new JsonObject().put("path", "/tmp/x").put("content", "y")));
    assertEquals(403, ws.next("error").getInteger("code"));
    ws.close();
    Reply mcp = client.mcp(viewer, "tools/call", new JsonObject().put("name", "run_script")
      .put("arguments", new JsonObject().put("node", "ghost").put("script", "id")));
    assertTrue(mcp.body().contains("403"), mcp.body());

    JsonArray refusals = refusalsOf("rita");
    List<String> seen = refusals.stream().map(JsonObject.class::cast).map(e -> e.getString("tool") + ":" + e.getInteger("code"))
      .sorted().toList();
    assertEquals(List.of("no_such_tool:404", "read_file:400", "run_command:403", "run_script:403", "write_file:403"), seen,
      refusals.encode());
  }
}
