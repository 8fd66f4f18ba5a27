package io.fleetbus.hub.approval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.hub.boot.HubAssembly;
import io.fleetbus.hub.calls.CallBus;
import io.fleetbus.hub.routing.RoutePlan;
import io.fleetbus.hub.routing.RoutingBus;
import io.fleetbus.hub.routing.RoutingService;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.msg.Codecs;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.fleetbus.shared.trust.Digests;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.List;
import java.util.UUID;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * The approval verticle on a real SQLite file, restarted as a new Vert.x instance: pending approvals
 * come back, the requester cannot approve their own call, an approved call is routed once, and an
 * expired one answers 408. (The same across real hub JVMs: {@code io.fleetbus.it.ApprovalRestartTest}.)
 */
@Timeout(60)
class ApprovalDurabilityTest {
  @TempDir
  Path dir;
  private final byte[] storeKey = Digests.randomBytes(32);
  private final AtomicInteger routed = new AtomicInteger();
  private Vertx vertx;
  private SqliteApprovalStore store;

  private void startHub(long ttlMs) throws Exception {
    vertx = Vertx.vertx();
    Codecs.register(vertx);
    HubAssembly.codecs(vertx);
    await(RoutingBus.serve(vertx, new RoutingService() {
      @Override
      public Future<ToolResult> route(ToolCall call) {
        routed.incrementAndGet();
        return Future.succeededFuture(ToolResult.ok(call.callId(), call.nodeId(), new JsonObject().put("ran", true), 1));
      }

      @Override
      public Future<RoutePlan> plan(ToolCall call) {
        // the check before parking: nothing against it (the router's, in a real hub)
        return Future.succeededFuture(RoutePlan.runs(call, new JsonObject()));
      }

      @Override
      public Future<JsonObject> callStatus(String nodeId, String callId, long waitMs) {
        return Future.failedFuture(FailureCode.NOT_FOUND.exception("no node here"));
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
    }));
    ToolCatalog catalog = ToolCatalog.load();
    store = new SqliteApprovalStore(vertx, dir.resolve("fleetbus.db"), storeKey);
    await(vertx.deployVerticle(new ApprovalVerticle(catalog, ttlMs, store, new ApprovalSummaries(vertx, catalog), false)));
  }

  private void stopHub() throws Exception {
    await(vertx.close());
    store.close();
  }

  @AfterEach
  void close() throws Exception {
    if (vertx != null) {
      stopHub();
    }
  }

  private static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
  }

  private ToolResult ask(String principal, String command) throws Exception {
    ToolCall call = new ToolCall(UUID.randomUUID().toString(), null, principal, List.of("admin"), "run_command",
      new JsonObject().put("command", command).put("timeout_seconds", 25), "n1", null, 5000, false, null);
    return await(ApprovalBus.client(vertx).submit(call));
  }

  private JsonArray approvals(String status) throws Exception {
    return await(ApprovalBus.client(vertx).list(status));
  }

  private JsonObject callRecord(String callId, long waitMs) throws Exception {
    return await(CallBus.client(vertx).record(callId, waitMs)).toJson();
  }

  private int decide(String approvalId, String who, List<String> roles) throws Exception {
    try {
      await(ApprovalBus.client(vertx).decide(new Decision(approvalId, true, who, roles, "checked", false)));
      return 200;
    } catch (java.util.concurrent.ExecutionException e) {
      return ((ReplyException) e.getCause()).failureCode();
    }
  }

  @Test
  void pendingApprovalSurvivesARestartAndRunsOnceWhenAnotherPersonApproves() throws Exception {
    startHub(60_000);
    ToolResult pending = ask("alice", "echo --password hunter2");
    String approvalId = pending.data().getString("approvalId");
    assertEquals(ToolResult.PENDING, pending.status());
    String file = Files.readString(dir.resolve("fleetbus.db"), StandardCharsets.ISO_8859_1)
      + Files.readString(dir.resolve("fleetbus.db-wal"), StandardCharsets.ISO_8859_1);
    assertTrue(file.contains(approvalId), "the approval is on disk before the caller hears of it");
    assertFalse(file.contains("hunter2"), "but its arguments are sealed");
    stopHub();

    startHub(60_000);
    JsonArray listed = approvals("pending");
    assertEquals(1, listed.size());
    JsonObject restored = listed.getJsonObject(0);
    assertEquals("echo --password hunter2", restored.getJsonObject("args").getString("command"));
    assertEquals(64, restored.getString("argsSha256").length());
    assertTrue(restored.getString("summary").contains("alice asks to run `echo --password hunter2` on node n1"));

    assertEquals(403, decide(approvalId, "alice", List.of("admin", "approver")), "no approving one's own call");
    assertEquals(403, decide(approvalId, "mallory", List.of("operator")), "deciding needs approver or admin");
    assertEquals(0, routed.get());
    assertEquals(200, decide(approvalId, "bob", List.of("approver")));
    assertEquals(409, decide(approvalId, "carol", List.of("approver")));
    JsonObject rec = callRecord(restored.getString("callId"), 5000);
    assertEquals("ok", rec.getString("status"));
    assertEquals(1, routed.get(), "approved once, routed once");
    stopHub();

    startHub(60_000);
    JsonObject decided = approvals(null).getJsonObject(0);
    assertEquals("approved", decided.getString("status"));
    assertEquals("bob", decided.getString("decidedBy"));
    assertEquals("checked", decided.getString("reason"));
  }

  @Test
  void unansweredApprovalExpiresWith408AndStaysExpiredAfterARestart() throws Exception {
    startHub(300);
    ToolResult pending = ask("alice", "uptime");
    JsonObject rec = callRecord(pending.callId(), 5000);
    assertEquals(408, rec.getJsonObject("error").getInteger("code"));
    stopHub();
    startHub(300);
    assertEquals("expired", approvals(null).getJsonObject(0).getString("status"));
    assertEquals(408, callRecord(pending.callId(), 0).getJsonObject("error").getInteger("code"));
    assertEquals(0, routed.get());
  }
}
