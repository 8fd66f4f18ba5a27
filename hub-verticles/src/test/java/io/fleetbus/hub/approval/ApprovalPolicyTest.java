package io.fleetbus.hub.approval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.hub.boot.HubAssembly;
import io.fleetbus.hub.audit.AuditVerticle;
import io.fleetbus.hub.calls.CallBus;
import io.fleetbus.hub.calls.CallRecord;
import io.fleetbus.hub.calls.CallService;
import io.fleetbus.hub.consent.Approval;
import io.fleetbus.hub.routing.RoutePlan;
import io.fleetbus.hub.routing.RoutingBus;
import io.fleetbus.hub.routing.RoutingService;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.msg.Codecs;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.function.Function;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * Approval policy through the typed clients ({@link ApprovalBus}, {@link CallBus}) on a plain Vert.x: the real
 * approval verticle and audit, approvals kept in memory, and a stand-in for routing that counts what it is asked to
 * run. Tier 1 passes, tier 3 parks; approve, deny, withdraw and expiry end it as they should. No cluster, no node.
 */
@ExtendWith(VertxExtension.class)
@Timeout(10)
class ApprovalPolicyTest {
  private static final ToolCatalog CATALOG = ToolCatalog.load();
  private static final List<String> APPROVER = List.of("approver");

  @TempDir
  Path dir;
  /** The calls routing was asked to carry out. */
  private final List<ToolCall> routed = new CopyOnWriteArrayList<>();
  /** What routing's plan says before a call parks: by default, it may run where it asked. */
  private Function<ToolCall, RoutePlan> plan = call -> RoutePlan.runs(call, new JsonObject());
  private ApprovalService approvals;
  private CallService calls;

  private Future<Void> start(Vertx vertx, long approvalTtlMs) {
    Codecs.register(vertx);
    HubAssembly.codecs(vertx);
    approvals = ApprovalBus.client(vertx);
    calls = CallBus.client(vertx);
    return RoutingBus.serve(vertx, new RoutingService() {
      @Override
      public Future<ToolResult> route(ToolCall call) {
        routed.add(call);
        return Future.succeededFuture(ToolResult.ok(call.callId(), call.nodeId(), new JsonObject().put("ran", true), 1));
      }

      @Override
      public Future<RoutePlan> plan(ToolCall call) {
        return Future.succeededFuture(plan.apply(call));
      }

      @Override
      public Future<JsonObject> callStatus(String nodeId, String callId, long waitMs) {
        return Future.failedFuture(FailureCode.NOT_FOUND.exception("no node in this test"));
      }

      @Override
      public Future<Void> reachable(String nodeId) {
        return Future.succeededFuture();
      }

      @Override
      public Future<JsonObject> refuseCall(String nodeId, String callId, JsonObject decision) {
        return Future.succeededFuture(new JsonObject().put("callId", callId).put("nodeId", nodeId).put("refused", true));
      }

      @Override
      public Future<JsonObject> callJournaled(String nodeId, String callId, long waitMs) {
        return Future.succeededFuture(new JsonObject().put("callId", callId).put("state", "running"));
      }
    })
      .compose(v -> vertx.deployVerticle(new AuditVerticle(dir.resolve("audit.db"))))
      .compose(v -> vertx.deployVerticle(new ApprovalVerticle(CATALOG, approvalTtlMs, new ApprovalsInMemory(),
        new ApprovalSummaries(vertx, CATALOG), false)))
      .mapEmpty();
  }

  private static ToolCall call(String principal, List<String> roles, String tool, JsonObject args) {
    return new ToolCall(UUID.randomUUID().toString(), null, principal, roles, tool, args, "n1", null, 2000, false, null);
  }

  private static ToolCall command(String principal, String command) {
    return call(principal, List.of("admin"), "run_command", new JsonObject().put("command", command));
  }

  private Future<ToolResult> parked(ToolCall call) {
    return approvals.submit(call).map(r -> {
      assertEquals(ToolResult.PENDING, r.status(), "tier 3 waits for a person");
      return r;
    });
  }

  private Future<JsonObject> decide(ToolResult pending, String who, List<String> roles, boolean approve) {
    return approvals.decide(new Decision(pending.data().getString("approvalId"), approve, who, roles, "checked", false));
  }

  private static Future<FailureCode> codeOf(Future<?> asked) {
    return asked.transform(ar -> Future.succeededFuture(ar.succeeded() ? null : FailureCode.of(ar.cause())));
  }

  @Test
  void tier1PassesStraightToRouting(Vertx vertx, VertxTestContext test) {
    start(vertx, 60_000)
      .compose(v -> approvals.submit(call("vic", List.of("viewer"), "read_file", new JsonObject().put("path", "/tmp/x"))))
      .compose(r -> approvals.list(null).map(listed -> {
        test.verify(() -> {
          assertEquals(ToolResult.OK, r.status());
          assertEquals(1, routed.size());
          assertEquals(0, listed.size(), "nobody is asked");
        });
        return r;
      }))
      .compose(r -> calls.record(r.callId(), 0))
      .onComplete(test.succeeding(rec -> test.verify(() -> {
        assertEquals(ToolResult.OK, rec.status(), "its end is recorded");
        test.completeNow();
      })));
  }

  @Test
  void tier3ParksForAPersonAndRunsOnceAnotherApproves(Vertx vertx, VertxTestContext test) {
    start(vertx, 60_000).compose(v -> parked(command("alice", "uptime"))).compose(pending -> approvals.list("pending")
      .compose(listed -> {
        test.verify(() -> {
          assertEquals(1, listed.size());
          assertEquals("alice", listed.getJsonObject(0).getString("requester"));
          assertEquals(0, routed.size(), "nothing runs before a decision");
        });
        return Future.all(codeOf(decide(pending, "alice", List.of("admin", "approver"), true)),
          codeOf(decide(pending, "mallory", List.of("operator"), true)));
      })
      .compose(refused -> {
        test.verify(() -> {
          assertEquals(FailureCode.FORBIDDEN, refused.resultAt(0), "no approving one's own call");
          assertEquals(FailureCode.FORBIDDEN, refused.resultAt(1), "deciding needs approver or admin");
        });
        return decide(pending, "bob", APPROVER, true);
      })
      .compose(decided -> codeOf(decide(pending, "carol", APPROVER, true)))
      .compose(again -> {
        test.verify(() -> assertEquals(FailureCode.CONFLICT, again, "decided once"));
        return calls.record(pending.callId(), 5000);
      }))
      .onComplete(test.succeeding(rec -> test.verify(() -> {
        assertEquals(ToolResult.OK, rec.status());
        assertEquals(1, routed.size(), "approved once, run once");
        test.completeNow();
      })));
  }

  @Test
  void aDenialEndsTheCallWith403(Vertx vertx, VertxTestContext test) {
    start(vertx, 60_000).compose(v -> parked(command("alice", "reboot")))
      .compose(pending -> decide(pending, "bob", APPROVER, false).compose(d -> calls.record(pending.callId(), 5000)))
      .onComplete(test.succeeding(rec -> test.verify(() -> {
        assertEquals(403, rec.result().errorCode());
        assertTrue(rec.result().errorMessage().contains("denied by bob"), rec.result().errorMessage());
        assertEquals(0, routed.size());
        test.completeNow();
      })));
  }

  @Test
  void theRequesterWithdrawsAPendingCallAndOthersMayNot(Vertx vertx, VertxTestContext test) {
    start(vertx, 60_000).compose(v -> parked(command("alice", "uptime")))
      .compose(pending -> codeOf(calls.cancel(pending.callId(), "mallory", List.of("operator")))
        .compose(notYours -> {
          test.verify(() -> assertEquals(FailureCode.FORBIDDEN, notYours));
          return calls.cancel(pending.callId(), "alice", List.of("admin"));
        })
        .compose(cancelled -> {
          test.verify(() -> assertEquals(new JsonObject().put("callId", pending.callId()).put("cancelled", true)
            .put("ran", false), cancelled));
          return Future.all(approvals.list(null), calls.record(pending.callId(), 0));
        }))
      .onComplete(test.succeeding(both -> test.verify(() -> {
        JsonArray listed = both.resultAt(0);
        CallRecord rec = both.resultAt(1);
        assertEquals(Approval.CANCELLED, listed.getJsonObject(0).getString("status"));
        assertEquals(ToolResult.CANCELLED, rec.status());
        assertEquals(0, routed.size());
        test.completeNow();
      })));
  }

  @Test
  void anUnansweredApprovalExpiresWith408(Vertx vertx, VertxTestContext test) {
    start(vertx, 150).compose(v -> parked(command("alice", "uptime")))
      .compose(pending -> calls.record(pending.callId(), 5000))
      .onComplete(test.succeeding(rec -> test.verify(() -> {
        assertEquals(408, rec.result().errorCode());
        assertEquals(0, routed.size());
        test.completeNow();
      })));
  }

  @Test
  void aRoleBelowTheToolsTierIsRefusedBeforeAnythingParks(Vertx vertx, VertxTestContext test) {
    start(vertx, 60_000)
      .compose(v -> codeOf(approvals.submit(call("vic", List.of("viewer"), "run_command",
        new JsonObject().put("command", "uptime")))))
      .compose(code -> approvals.list(null).map(listed -> {
        test.verify(() -> {
          assertEquals(FailureCode.FORBIDDEN, code);
          assertEquals(0, listed.size());
          assertEquals(0, routed.size());
        });
        return null;
      }))
      .onComplete(test.succeedingThenComplete());
  }

  @Test
  void aCallRoutingRefusesIsAnsweredAtOnceAndNeverParks(Vertx vertx, VertxTestContext test) {
    plan = call -> RoutePlan.refused(FailureCode.FORBIDDEN, "node 'n1' refuses run_command: not on its allowlist",
      "node n1", new JsonObject());
    start(vertx, 60_000).compose(v -> approvals.submit(command("alice", "rm -rf /")))
      .onComplete(test.failing(err -> approvals.list(null).onComplete(test.succeeding(listed -> test.verify(() -> {
        assertEquals(FailureCode.FORBIDDEN, FailureCode.of(err));
        assertTrue(err.getMessage().contains("not on its allowlist"), err.getMessage());
        assertEquals(0, listed.size(), "nobody is asked to approve a call that can never run");
        test.completeNow();
      })))));
  }

  @Test
  void aSelectorCallParksAndRunsOnTheNodesRoutingPlanned(Vertx vertx, VertxTestContext test) {
    plan = call -> RoutePlan.pinned(call, List.of("n2"), new JsonObject());
    ToolCall byLabels = new ToolCall(UUID.randomUUID().toString(), null, "alice", List.of("admin"), "run_command",
      new JsonObject().put("command", "uptime"), null, new JsonObject().put("labels", new JsonObject().put("env", "prod")),
      2000, false, null);
    start(vertx, 60_000).compose(v -> parked(byLabels))
      .compose(pending -> approvals.list("pending").compose(listed -> {
        test.verify(() -> assertTrue(listed.getJsonObject(0).getString("summary").contains("on nodes [\"n2\"]"),
          listed.encode()));
        return decide(pending, "bob", APPROVER, true);
      }).compose(d -> calls.record(pending.callId(), 5000)))
      .onComplete(test.succeeding(rec -> test.verify(() -> {
        assertEquals(ToolResult.OK, rec.status());
        assertEquals(new JsonArray().add("n2"), routed.get(0).selector().getJsonArray("nodes"));
        test.completeNow();
      })));
  }

  /** Approvals kept in memory (the SQLite store is ApprovalDurabilityTest's). Confined to the approval verticle. */
  private static final class ApprovalsInMemory implements ApprovalStore {
    private final Map<String, Approval> saved = new LinkedHashMap<>();

    @Override
    public Future<Void> save(Approval approval) {
      saved.put(approval.approvalId(), approval);
      return Future.succeededFuture();
    }

    @Override
    public Future<List<Approval>> load(int recentDecided) {
      return Future.succeededFuture(new ArrayList<>(saved.values()));
    }
  }
}
