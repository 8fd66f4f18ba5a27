package io.fleetbus.hub.authz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.hub.authz.HubClient.Reply;
import io.fleetbus.hub.fuzz.InProcessHub;
import io.fleetbus.shared.fault.FaultSwitch;
import io.fleetbus.shared.fault.FaultSwitches;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.MethodOrderer;
import org.junit.jupiter.api.Order;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.TestMethodOrder;
import org.junit.jupiter.api.Timeout;

/**
 * Who sees what (docs/security.md): every route × every role × their own or another user's object, over REST, WebSocket
 * and MCP, against a real hub (in process: real API, approval, routing, audit on SQLite). Objects: tier-1 calls of
 * each role and of another viewer (vic); tier-3 approvals (run_command, parked for a node) of another admin (bob),
 * whose arguments carry a canary secret, and of the admin under test. Each table row is one case.
 */
@Timeout(180)
@TestMethodOrder(MethodOrderer.OrderAnnotation.class)
class AuthorizationMatrixTest {
  static final String CANARY = "CANARY-7f3a91c2";
  static final List<String> ROLES = List.of("viewer", "operator", "approver", "admin");
  static final Map<String, String> SUBJECT = Map.of("viewer", "alice", "operator", "oscar", "approver", "ann",
    "admin", "adam");

  static InProcessHub hub;
  static HubClient client;
  static final Map<String, String> token = new LinkedHashMap<>();
  static final Map<String, String> ownCall = new LinkedHashMap<>();
  static String vic;
  static String bob;
  static String vicCall;
  static String bobCall;
  static String bobApproval;
  static String adamApproval;

  /** One case: as {@code role}, {@code method path} answers {@code status}; for lists, whether others' objects show. */
  record Case(String role, String method, String path, int status, Boolean seesOthers) {
    @Override
    public String toString() {
      return role + " " + method + " " + path + " → " + status + (seesOthers == null ? "" : seesOthers ? " (sees others')" : " (own only)");
    }
  }

  @BeforeAll
  static void fleetWithObjects() throws Exception {
    hub = InProcessHub.start();
    client = new HubClient(hub);
    ROLES.forEach(r -> token.put(r, hub.token(SUBJECT.get(r), r)));
    vic = hub.token("vic", "viewer");
    bob = hub.token("bob", "admin");
    for (String role : List.of("viewer", "operator", "admin")) {
      ownCall.put(role, call(token.get(role)));
    }
    vicCall = call(vic);
    Reply parked = client.rest(bob, "POST", "/api/v1/nodes/ghost/tools/run_command",
      new JsonObject().put("command", "deploy --password=" + CANARY).encode());
    assertEquals(202, parked.status(), parked.body());
    bobApproval = parked.json().getString("approvalId");
    bobCall = parked.json().getString("callId");
    Reply own = client.rest(token.get("admin"), "POST", "/api/v1/nodes/ghost/tools/run_command",
      new JsonObject().put("command", "uname -a").encode());
    assertEquals(202, own.status(), own.body());
    adamApproval = own.json().getString("approvalId");
  }

  @AfterAll
  static void stop() throws Exception {
    hub.close();
  }

  private static String call(String token) throws Exception {
    Reply r = client.rest(token, "POST", "/api/v1/tools/list_tools", "{}");
    assertEquals(200, r.status(), r.body());
    return r.json().getString("callId");
  }

  /** The REST table: [role, method, path, status, sees others' objects (lists only)]. */
  static List<Case> restCases() {
    List<Case> t = new ArrayList<>();
    Object[][] perRoute = {
      // method, path,                                   viewer operator approver admin, list? (others' objects visible)
      {"GET", "/api/v1/calls/" + vicCall,                   404, 404, 200, 200, null},
      {"GET", "/api/v1/calls/" + bobCall,                   404, 404, 202, 202, null},
      {"GET", "/api/v1/calls/" + vicCall + "?wait=1",       404, 404, 200, 200, null},
      {"GET", "/api/v1/calls/no-such-call",                 404, 404, 404, 404, null},
      {"GET", "/api/v1/approvals",                          200, 200, 200, 200, "list"},
      {"GET", "/api/v1/approvals?status=pending",           200, 200, 200, 200, "list"},
      {"GET", "/api/v1/audit",                              200, 200, 200, 200, "list"},
      {"GET", "/api/v1/audit?principal=vic",                403, 403, 200, 200, null},
      {"GET", "/api/v1/audit/verify",                       403, 403, 200, 200, null},
      {"GET", "/api/v1/nodes",                              200, 200, 200, 200, null},
      {"GET", "/api/v1/nodes/ghost",                        404, 404, 404, 404, null},
      {"GET", "/api/v1/tools",                              200, 200, 200, 200, null},
      {"POST", "/api/v1/tools/list_tools",                  200, 200, 403, 200, null},
      {"POST", "/api/v1/calls/" + vicCall + "/cancel",      403, 403, 409, 409, null},
      {"POST", "/api/v1/approvals/" + bobApproval + "/deny", 403, 403, null, null, null},
      {"POST", "/api/v1/approvals/" + adamApproval + "/approve", 403, 403, null, 403, null},
      // (the in-process hub has no enrollment service: the admin's own enrollment is covered by NodeEnrollmentTest)
      {"POST", "/api/v1/enrollments",                       403, 403, 403, null, null},
    };
    for (Object[] row : perRoute) {
      for (int i = 0; i < ROLES.size(); i++) {
        if (row[2 + i] != null) {
          Boolean sees = row[6] == null ? null : i >= 2;
          t.add(new Case(ROLES.get(i), (String) row[0], (String) row[1], (Integer) row[2 + i], sees));
        }
      }
    }
    // each role's own call and own audit entries
    ownCall.forEach((role, callId) -> t.add(new Case(role, "GET", "/api/v1/calls/" + callId, 200, null)));
    ROLES.forEach(role -> t.add(new Case(role, "GET", "/api/v1/audit?principal=" + SUBJECT.get(role), 200, null)));
    return t;
  }

  /** What a case observed differs from the table: null when it matches, else why. */
  static String check(Case c) throws Exception {
    String body = c.method().equals("POST") ? (c.path().contains("/approvals/") ? "{\"reason\":\"matrix\"}" : "{}") : null;
    if (c.path().endsWith("/enrollments")) {
      body = new JsonObject().put("nodeId", "matrix-" + c.role()).encode();
    }
    Reply r = client.rest(token.get(c.role()), c.method(), c.path(), body);
    if (r.status() != c.status()) {
      return c + ": got " + r.status() + " " + r.body();
    }
    if (c.seesOthers() != null) {
      boolean others = r.body().contains("\"bob\"") || r.body().contains("\"vic\"");
      if (others != c.seesOthers()) {
        return c + ": others' objects " + (others ? "shown" : "hidden") + " in " + r.body();
      }
    }
    return null;
  }

  @Test
  @Order(1)
  void restMatchesTheTable() throws Exception {
    List<Case> cases = restCases();
    List<String> wrong = new ArrayList<>();
    for (Case c : cases) {
      String why = check(c);
      if (why != null) {
        wrong.add(why);
      }
    }
    assertTrue(wrong.isEmpty(), wrong.size() + " of " + cases.size() + " REST cases differ:\n" + String.join("\n", wrong));
    assertTrue(cases.size() >= 60, "REST table has " + cases.size() + " cases");
  }

  /** The same table with the policy switched off: the table would catch it (a viewer reads others' calls …). */
  @Test
  @Order(2)
  void theTableCatchesAHubWithoutThePolicy() throws Exception {
    try (FaultSwitches.Restore off = FaultSwitches.overrideInTest(FaultSwitches.of(FaultSwitch.NO_AUTHZ))) {
      int differ = 0;
      for (Case c : restCases()) {
        if (c.method().equals("GET") && check(c) != null) {
          differ++;
        }
      }
      assertTrue(differ >= 10, "only " + differ + " read cases noticed the missing policy");
    }
  }

  /** WebSocket: sign in, call, and which approval events each role hears (bob parks one more call). */
  @Test
  @Order(3)
  void webSocketMatchesTheTable() throws Exception {
    Map<String, HubClient.Socket> sockets = new LinkedHashMap<>();
    List<String> wrong = new ArrayList<>();
    int cases = 0;
    for (String role : ROLES) {
      HubClient.Socket s = client.socket();
      sockets.put(role, s);
      s.send(new JsonObject().put("type", "auth").put("token", token.get(role)));
      cases++;
      if (!SUBJECT.get(role).equals(s.next("authenticated").getString("subject"))) {
        wrong.add(role + " ws auth");
      }
      s.send(new JsonObject().put("type", "call").put("id", "c1").put("tool", "list_tools").put("args", new JsonObject()));
      JsonObject answer = s.frames.take();
      while (!List.of("result", "error").contains(answer.getString("type"))) {
        answer = s.frames.take();
      }
      cases++;
      boolean ok = "result".equals(answer.getString("type"));
      if (ok != !role.equals("approver")) {
        wrong.add(role + " ws call list_tools → " + answer.encode());
      }
      s.send(new JsonObject().put("type", "subscribe").put("topic", "approvals"));
      s.next("subscribed");
    }
    Reply parked = client.rest(bob, "POST", "/api/v1/nodes/ghost/tools/run_command",
      new JsonObject().put("command", "uptime").encode());
    assertEquals(202, parked.status(), parked.body());
    String approvalId = parked.json().getString("approvalId");
    // the approver hears it; a ping answered after that on every socket orders the check (events to a socket
    // are queued on its context before the ping that follows them over the wire)
    for (String role : ROLES) {
      HubClient.Socket s = sockets.get(role);
      if (Access.seesAll(new io.fleetbus.hub.authz.Caller(SUBJECT.get(role), List.of(role)))) {
        s.next("event");
      }
      s.send(new JsonObject().put("type", "ping").put("id", "p"));
      s.next("pong");
      cases++;
      boolean heard = s.seen.stream().anyMatch(f -> f.contains(approvalId));
      boolean expected = role.equals("approver") || role.equals("admin");
      if (heard != expected) {
        wrong.add(role + " ws approval event of bob: heard=" + heard);
      }
      s.close();
    }
    assertTrue(wrong.isEmpty(), wrong.size() + " of " + cases + " WebSocket cases differ:\n" + String.join("\n", wrong));
  }

  /** MCP: initialize, a tier-1 call, and whether get_site_logs shows others' approvals and calls. */
  @Test
  @Order(4)
  void mcpMatchesTheTable() throws Exception {
    List<String> wrong = new ArrayList<>();
    int cases = 0;
    for (String role : ROLES) {
      cases++;
      Reply init = client.mcp(token.get(role), null, null);
      if (init.status() != 200) {
        wrong.add(role + " mcp initialize → " + init.status());
      }
      cases++;
      Reply call = client.mcp(token.get(role), "tools/call", new JsonObject().put("name", "list_tools")
        .put("arguments", new JsonObject()));
      boolean refused = call.body().contains("\"isError\":true") || call.body().contains("\"error\"");
      if (refused != role.equals("approver")) {
        wrong.add(role + " mcp list_tools → " + call.body());
      }
      cases++;
      Reply logs = client.mcp(token.get(role), "tools/call", new JsonObject().put("name", "get_site_logs")
        .put("arguments", new JsonObject().put("limit", 500)));
      boolean others = logs.body().contains(bobApproval) || logs.body().contains(vicCall);
      boolean expected = role.equals("admin");
      if (!role.equals("approver") && others != expected) {
        wrong.add(role + " mcp get_site_logs shows others' approvals/calls: " + others);
      }
    }
    cases += 1;
    Reply evil = client.mcp(forged(), null, null);
    if (evil.status() != 401) {
      wrong.add("mcp with a token of another issuer → " + evil.status());
    }
    assertTrue(wrong.isEmpty(), wrong.size() + " of " + cases + " MCP cases differ:\n" + String.join("\n", wrong));
  }

  private static String forged() {
    return TokenForge.of(hub).claims(new JsonObject().put("sub", "eve").put("roles", new io.vertx.core.json.JsonArray()
      .add("admin")).put("iss", "evil").put("exp", System.currentTimeMillis() / 1000 + 600));
  }

  /** A canary secret in bob's call arguments reaches nobody else, whatever they list or read (ann approves it). */
  @Test
  @Order(5)
  void aCanarySecretReachesNoOtherUser() throws Exception {
    try (FaultSwitches.Restore off = FaultSwitches.overrideInTest(FaultSwitches.of(FaultSwitch.NO_AUTHZ))) {
      assertTrue(client.rest(token.get("viewer"), "GET", "/api/v1/approvals", null).body().contains(CANARY),
        "without the policy a viewer reads bob's secret in the approval list (the attack)");
    }
    HubClient.Socket approverSocket = client.socket();
    approverSocket.send(new JsonObject().put("type", "auth").put("token", token.get("approver")));
    approverSocket.next("authenticated");
    approverSocket.send(new JsonObject().put("type", "subscribe").put("topic", "approvals"));
    approverSocket.next("subscribed");
    List<String> seen = new ArrayList<>();
    Reply decided = client.rest(token.get("approver"), "POST", "/api/v1/approvals/" + bobApproval + "/approve",
      "{\"reason\":\"ok\"}");
    assertEquals(200, decided.status(), decided.body());
    seen.add(decided.body());
    approverSocket.next("event");
    for (String role : ROLES) {
      String t = token.get(role);
      for (String path : List.of("/api/v1/approvals", "/api/v1/approvals?status=approved", "/api/v1/calls/" + bobCall + "?wait=10",
        "/api/v1/audit?limit=1000", "/api/v1/audit?principal=bob")) {
        seen.add(client.rest(t, "GET", path, null).body());
      }
      seen.add(client.rest(t, "POST", "/api/v1/tools/get_site_logs", "{\"limit\":500}").body());
      seen.add(client.mcp(t, "tools/call", new JsonObject().put("name", "get_site_logs")
        .put("arguments", new JsonObject().put("limit", 500))).body());
    }
    seen.addAll(approverSocket.seen);
    approverSocket.close();
    long leaks = seen.stream().filter(s -> s.contains(CANARY)).count();
    assertEquals(0, leaks, "responses holding bob's secret, e.g. " + seen.stream().filter(s -> s.contains(CANARY))
      .map(s -> s.substring(0, Math.min(300, s.length()))).findFirst().orElse(""));
    assertTrue(seen.stream().anyMatch(s -> s.contains("***MASKED***")), "the approval was shown, masked");
  }
}
