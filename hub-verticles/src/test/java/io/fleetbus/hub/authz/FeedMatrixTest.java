package io.fleetbus.hub.authz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.hub.authz.FeedListener.Kind;
import io.fleetbus.hub.fuzz.InProcessHub;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.fault.FaultSwitch;
import io.fleetbus.shared.fault.FaultSwitches;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.RegisterExtension;

/**
 * The authorization matrix (docs/security.md, "Who sees what") over every live feed and the job tools' answers: each
 * role listens on the WebSocket API, the SockJS bridge and the TCP bridge, and reads get_site_logs, while the hub
 * announces approvals, calls and jobs of every user and of bob (another admin); each (feed, role, event) is one case.
 * The job tools: job_list, job_logs, job_status and job_wait answers about a job of each user, for each role.
 */
@Timeout(120)
class FeedMatrixTest {
  private static final List<String> ROLES = AuthorizationMatrixTest.ROLES;
  private static final Map<String, String> SUBJECT = AuthorizationMatrixTest.SUBJECT;
  private static final List<String> OWNERS = List.of("alice", "oscar", "ann", "adam", "bob");
  private static final List<String> PERSONAL = List.of("approval.requested", "approval.decided", "call.finished",
    "job.finished", "job.stalled");

  @RegisterExtension
  static final InProcessHub hub = InProcessHub.perClass();

  /** What the hub announces: one event of each personal kind per owner (its marker in it), then a node event. */
  private static List<JsonObject> announcements(String run) {
    List<JsonObject> events = new ArrayList<>();
    for (String owner : OWNERS) {
      for (String type : PERSONAL) {
        String marker = "m-" + run + "-" + owner + "-" + type;
        JsonObject e = new JsonObject().put("type", type).put("nodeId", "n1").put("tool", "run_command");
        if (type.startsWith("approval.")) {
          e.put("approvalId", marker).put("callId", marker + "-call").put("requester", owner);
        } else if (type.startsWith("call.")) {
          e.put("callId", marker).put("principal", owner);
        } else {
          e.put("jobId", marker).put("principal", owner);
        }
        events.add(e);
      }
    }
    return events;
  }

  private static boolean carries(Kind kind, String type) {
    return kind != Kind.WEBSOCKET || type.startsWith("approval.") || type.startsWith("node.");
  }

  /** The table's own word (not Access's, which the fault switch turns off): approvers and admins see all. */
  private static boolean seesAll(String role) {
    return role.equals("approver") || role.equals("admin");
  }

  /** Every listener of every role on every feed hears exactly what the table says: returns what differs. */
  private static List<String> feedsDiffer(int[] cases) throws Exception {
    HubClient client = new HubClient(hub);
    List<FeedListener> listeners = new ArrayList<>();
    List<String> wrong = new ArrayList<>();
    try {
      for (String role : ROLES) {
        for (Kind kind : Kind.values()) {
          listeners.add(FeedListener.open(kind, hub, client, role, hub.token(SUBJECT.get(role), role)));
        }
      }
      // registrations complete asynchronously (the token check): announce a node event until every listener hears it
      String ready = "ready-" + UUID.randomUUID();
      for (FeedListener l : listeners) {
        while (!l.await(ready, 50)) {
          hub.vertx.eventBus().publish("fleet.events", new JsonObject().put("type", "node.online").put("nodeId", ready));
        }
      }
      String run = UUID.randomUUID().toString().substring(0, 8);
      List<JsonObject> events = announcements(run);
      events.forEach(e -> hub.vertx.eventBus().publish("fleet.events", e));
      String last = "last-" + run;
      hub.vertx.eventBus().publish("fleet.events", new JsonObject().put("type", "node.offline").put("nodeId", last));
      for (FeedListener l : listeners) {
        assertTrue(l.await(last, 20_000), l + " never heard the node event after the others");
        String subject = SUBJECT.get(l.role);
        for (JsonObject e : events) {
          String owner = e.getString("requester", e.getString("principal"));
          String marker = e.getString("approvalId", e.getString("callId", e.getString("jobId")));
          boolean expected = carries(l.kind, e.getString("type")) && (owner.equals(subject) || seesAll(l.role));
          cases[0]++;
          if (l.heard(marker) != expected) {
            wrong.add(l + " " + e.getString("type") + " of " + owner + ": heard=" + !expected);
          }
        }
      }
      siteLogs(client, events, cases, wrong);
    } finally {
      for (FeedListener l : listeners) {
        l.close();
      }
    }
    return wrong;
  }

  /** get_site_logs (REST and MCP read the same tool): others' approvals, calls and jobs only for approvers and admins. */
  private static void siteLogs(HubClient client, List<JsonObject> events, int[] cases, List<String> wrong) throws Exception {
    for (String role : ROLES) {
      if (role.equals("approver")) {
        continue; // approvers call no tools (403: AuthorizationMatrixTest)
      }
      String logs = client.rest(hub.token(SUBJECT.get(role), role), "POST", "/api/v1/tools/get_site_logs",
        "{\"limit\": 500}").body();
      for (JsonObject e : events) {
        String owner = e.getString("requester", e.getString("principal"));
        String marker = e.getString("approvalId", e.getString("callId", e.getString("jobId")));
        boolean expected = owner.equals(SUBJECT.get(role)) || seesAll(role);
        cases[0]++;
        if (logs.contains("\"" + marker + "\"") != expected) {
          wrong.add("get_site_logs " + role + " " + e.getString("type") + " of " + owner + ": shown=" + !expected);
        }
      }
    }
  }

  @Test
  void everyFeedMatchesTheTable() throws Exception {
    int[] cases = {0};
    List<String> wrong = feedsDiffer(cases);
    assertTrue(wrong.isEmpty(), wrong.size() + " of " + cases[0] + " feed cases differ:\n" + String.join("\n", wrong));
    // 4 roles × 3 feeds × 25 events, and get_site_logs for the 3 roles that call tools × 25
    assertEquals(375, cases[0], "feed cases");
  }

  /** With the policy off the same table finds others' events on every feed (the TCP bridge's included). */
  @Test
  void theFeedTableCatchesAHubWithoutThePolicy() throws Exception {
    try (FaultSwitches.Restore off = FaultSwitches.overrideInTest(FaultSwitches.of(FaultSwitch.NO_AUTHZ))) {
      List<String> wrong = feedsDiffer(new int[1]);
      for (Kind kind : Kind.values()) {
        assertTrue(wrong.stream().anyMatch(w -> w.startsWith(kind + " viewer") && w.contains("of bob")),
          kind + " did not show bob's events to a viewer without the policy: " + wrong);
      }
      assertTrue(wrong.stream().anyMatch(w -> w.startsWith("get_site_logs viewer")), String.valueOf(wrong));
    }
  }

  /** A job tool's answer about a job of {@code owner}, as the node gives it. */
  private static ToolResult jobAnswer(String tool, String owner) {
    JsonObject job = new JsonObject().put("jobId", "j-" + owner).put("status", "completed").put("principal", owner)
      .put("command", "deploy");
    JsonObject data = switch (tool) {
      case "job_list" -> new JsonObject().put("jobs", new JsonArray().add(job)
        .add(job.copy().put("jobId", "j-bob").put("principal", "bob"))).put("count", 2).put("total", 2);
      case "job_logs" -> new JsonObject().put("jobId", "j-" + owner).put("status", "completed").put("principal", owner)
        .put("lines", new JsonArray().add(new JsonObject().put("text", "secret output of " + owner)));
      case "job_wait" -> new JsonObject().put("jobId", "j-" + owner).put("status", "completed").put("job", job);
      default -> job;
    };
    return ToolResult.ok("c1", "n1", data, 1);
  }

  /** The same over a fan-out (one answer per node, nodeId null): bob's job on n1, the caller's own on n2. */
  private static int fanOutCases(List<String> wrong) {
    int cases = 0;
    for (String role : ROLES) {
      Caller caller = new Caller(SUBJECT.get(role), List.of(role));
      for (String tool : List.of("job_status", "job_logs", "job_wait", "job_list")) {
        JsonArray results = new JsonArray();
        for (String[] node : new String[][] {{"n1", "bob"}, {"n2", caller.subject()}}) {
          ToolResult one = jobAnswer(tool, node[1]);
          JsonObject data = tool.equals("job_list") ? one.data().copy().put("jobs", new JsonArray()
            .add(one.data().getJsonArray("jobs").getJsonObject(node[0].equals("n1") ? 1 : 0))) : one.data();
          results.add(new JsonObject().put("nodeId", node[0]).put("status", "ok").put("data", data));
        }
        ToolResult fanOut = ToolResult.ok("c2", null, new JsonObject().put("mode", "all").put("results", results), 1);
        JsonArray answered = Access.nodeAnswer(caller, tool, fanOut).data().getJsonArray("results");
        String shown = answered.encode();
        JsonObject bobs = answered.getJsonObject(0);
        boolean bobShown = bobs.containsKey("data") && bobs.getJsonObject("data").encode().contains("j-bob");
        cases += 2;
        if (bobShown != seesAll(role) || !bobShown && !tool.equals("job_list")
          && bobs.getJsonObject("error").getInteger("code") != 404) {
          wrong.add(role + " fan-out " + tool + " shows bob's job: " + bobShown + " " + bobs.encode());
        }
        if (!shown.contains("j-" + caller.subject())) {
          wrong.add(role + " fan-out " + tool + " hides the caller's own job: " + shown);
        }
      }
    }
    return cases;
  }

  /**
   * job_status, job_logs and job_wait about one's own job and another's (bob's), job_list holding both, for each
   * role: a job follows the call that launched it (its launcher, approvers, admins); others get the unknown job's 404.
   */
  @Test
  void jobAnswersMatchTheTable() {
    List<String> wrong = new ArrayList<>();
    int cases = 0;
    for (String role : ROLES) {
      Caller caller = new Caller(SUBJECT.get(role), List.of(role));
      for (String tool : List.of("job_status", "job_logs", "job_wait")) {
        for (String owner : List.of(SUBJECT.get(role), "bob")) {
          cases++;
          boolean expected = owner.equals(caller.subject()) || seesAll(role);
          boolean shown;
          try {
            shown = Access.nodeAnswer(caller, tool, jobAnswer(tool, owner)).data().encode().contains("j-" + owner);
          } catch (FleetException e) {
            assertEquals(FailureCode.NOT_FOUND, e.code(), e.getMessage());
            shown = false;
          }
          if (shown != expected) {
            wrong.add(role + " " + tool + " of " + owner + ": shown=" + shown);
          }
        }
      }
      cases++;
      JsonObject list = Access.nodeAnswer(caller, "job_list", jobAnswer("job_list", caller.subject())).data();
      boolean others = list.encode().contains("j-bob");
      if (others != seesAll(role) || list.getInteger("count") != list.getJsonArray("jobs").size()) {
        wrong.add(role + " job_list shows bob's job: " + others + " " + list.encode());
      }
    }
    cases += fanOutCases(wrong);
    cases += cancelAndRecoveryCases(wrong);
    assertTrue(wrong.isEmpty(), wrong.size() + " of " + cases + " job cases differ:\n" + String.join("\n", wrong));
    try (FaultSwitches.Restore off = FaultSwitches.overrideInTest(FaultSwitches.of(FaultSwitch.NO_AUTHZ))) {
      Caller viewer = new Caller("alice", List.of("operator"));
      assertTrue(Access.nodeAnswer(viewer, "job_logs", jobAnswer("job_logs", "bob")).data().encode().contains("bob"),
        "without the policy an operator reads bob's job output (the attack the table catches)");
      List<String> leaks = new ArrayList<>();
      cancelAndRecoveryCases(leaks);
      assertTrue(leaks.stream().anyMatch(w -> w.startsWith("operator job_cancel of bob: sent=true"))
        && leaks.stream().anyMatch(w -> w.startsWith("operator recovered job_logs of bob: shown=true")),
        "without the policy an operator cancels bob's job and reads it in a recovered record: " + leaks);
    }
  }

  /**
   * job_cancel of one's own job and of bob's, for each role: sent only when the node's job_status, seen as the caller,
   * shows the job (its launcher, approvers, admins); others get the 404 and nothing is cancelled. A fan-out cancel is
   * for approvers and admins. And a job_logs
   * answer recovered from the node's journal (the call's answer was lost): its record keeps the requester but not
   * their roles, so it shows the requester's own job only.
   */
  private static int cancelAndRecoveryCases(List<String> wrong) {
    int cases = 0;
    for (String role : ROLES) {
      String subject = SUBJECT.get(role);
      cases++;
      ToolCall everywhere = new ToolCall("f-" + role, null, subject, List.of(role), "job_cancel",
        new JsonObject().put("job_id", "j-" + subject), null, new JsonObject().put("mode", "all"), 5000, false, null);
      boolean fannedOut = io.fleetbus.hub.calls.JobCancelCheck.admit(everywhere, ask -> io.vertx.core.Future
        .succeededFuture(jobAnswer(ask.tool(), subject))).succeeded();
      if (fannedOut != seesAll(role)) {
        wrong.add(role + " job_cancel fan-out: sent=" + fannedOut);
      }
      for (String owner : List.of(subject, "bob")) {
        cases += 2;
        ToolCall cancel = new ToolCall("c-" + role + "-" + owner, null, subject, List.of(role), "job_cancel",
          new JsonObject().put("job_id", "j-" + owner), "n1", null, 5000, false, null);
        var admitted = io.fleetbus.hub.calls.JobCancelCheck.admit(cancel, ask -> io.vertx.core.Future.succeededFuture(
          ("j-" + owner).equals(ask.args().getString("job_id")) ? jobAnswer(ask.tool(), owner)
            : ToolResult.error(ask.callId(), "n1", FailureCode.NOT_FOUND, "no such job", 1)));
        boolean sent = admitted.succeeded();
        if (sent != (owner.equals(subject) || seesAll(role))
          || !sent && FleetException.class.isInstance(admitted.cause())
          && ((FleetException) admitted.cause()).code() != FailureCode.NOT_FOUND) {
          wrong.add(role + " job_cancel of " + owner + ": sent=" + sent + " " + admitted.cause());
        }
        io.fleetbus.hub.calls.CallRecord lost = new io.fleetbus.hub.calls.CallRecord("r-" + role + "-" + owner, subject,
          "n1", "job_logs", 1, io.fleetbus.hub.calls.CallRecord.RUNNING, null, null, 1, 0, "hub", null);
        io.fleetbus.hub.calls.CallRecord told = io.fleetbus.hub.calls.CallTruth.apply(lost, new JsonObject()
          .put("state", "done").put("result", jobAnswer("job_logs", owner).toJson()));
        boolean shown = told.result() != null && told.result().data() != null
          && told.result().data().encode().contains("j-" + owner);
        if (shown != owner.equals(subject)) {
          wrong.add(role + " recovered job_logs of " + owner + ": shown=" + shown + " " + told.result());
        }
      }
    }
    return cases;
  }
}
