package io.fleetbus.hub.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.hub.audit.AuditVerticle;
import io.fleetbus.hub.boot.HubAssembly;
import io.fleetbus.hub.registry.RegistryBus;
import io.fleetbus.hub.registry.RegistryStandIn;
import io.fleetbus.hub.routing.RoutePlan;
import io.fleetbus.hub.routing.RoutingBus;
import io.fleetbus.hub.routing.RoutingService;
import io.fleetbus.shared.msg.Codecs;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.Context;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.HashSet;
import java.util.List;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34, item 3: a record left {@code running} that nobody carries (its hub lost it: a split, a merge under a new
 * member id) is not left so. The sweeper, on its second look, asks the node's journal, and what it says ends the record;
 * a call this hub is carrying out, or one still changing, is left alone. Without the sweeper it stays running.
 */
class RecordSweeperTest {
  @TempDir
  Path dir;
  private final Vertx vertx = Vertx.vertx();
  private final AtomicInteger asked = new AtomicInteger();

  @AfterEach
  void close() throws Exception {
    vertx.close().toCompletionStage().toCompletableFuture().get(10, TimeUnit.SECONDS);
  }

  @Test
  void aRunningRecordNobodyCarriesIsEndedByWhatItsNodeJournaled() throws Exception {
    Codecs.register(vertx);
    HubAssembly.codecs(vertx);
    await(RoutingBus.serve(vertx, new NodeSaysDone()).compose(v -> RegistryBus.serve(vertx, new RegistryStandIn(() -> true)))
      .compose(v -> vertx.deployVerticle(new AuditVerticle(dir.resolve("audit.db")))));
    Context ctx = vertx.getOrCreateContext();
    ToolCall call = new ToolCall("lost-1", null, "alice", List.of("admin"), "run_script", new JsonObject(), "n1", null,
      5000, false, null);
    CallRecord stale = CallRecord.started(call, 2, null, System.currentTimeMillis(), "hub-that-left-in-a-split");
    CallRecord carriedHere = new CallRecord("carried-1", "alice", "n1", "run_script", 2, CallRecord.RUNNING, null, null,
      System.currentTimeMillis(), 0, "this-hub", null);
    CompletableFuture<CallRecord> after = new CompletableFuture<>();
    ctx.runOnContext(v -> {
      CallRecords records = new CallRecords(ctx, null, null);
      records.keep(stale);
      records.keep(carriedHere);
      OutcomeRecovery recovery = new OutcomeRecovery(vertx, records, id -> null, new CallTruth(vertx),
        new CallAuditor(vertx), null, "this-hub", c -> { });
      RecordSweeper sweeper = new RecordSweeper(ctx, records, null, null, "this-hub", m -> false,
        new HashSet<>(List.of("carried-1")));
      sweeper.sweep(recovery);
      assertEquals(0, asked.get(), "first look: only suspected");
      sweeper.sweep(recovery);
      records.await("lost-1", 5000).onComplete(ar -> after.complete(ar.result()));
    });
    CallRecord ended = after.get(10, TimeUnit.SECONDS);
    assertEquals(ToolResult.OK, ended.status(), ended.toJson().encode());
    assertTrue(ended.resolution().startsWith("finished on the node"), ended.resolution());
    assertEquals(1, asked.get(), "the node asked once, for the call nobody carried (not the one carried here)");
  }

  /** Routing as far as the node's journal: every call asked about finished there. */
  private final class NodeSaysDone implements RoutingService {
    @Override
    public Future<ToolResult> route(ToolCall call) {
      return Future.failedFuture("not in this test");
    }

    @Override
    public Future<RoutePlan> plan(ToolCall call) {
      return Future.failedFuture("not in this test");
    }

    @Override
    public Future<Void> reachable(String nodeId) {
      return Future.succeededFuture();
    }

    @Override
    public Future<JsonObject> refuseCall(String nodeId, String callId, JsonObject decision) {
      return Future.failedFuture("not in this test");
    }

    @Override
    public Future<JsonObject> callJournaled(String nodeId, String callId, long waitMs) {
      return Future.failedFuture("not in this test");
    }

    @Override
    public Future<JsonObject> callStatus(String nodeId, String callId, long waitMs) {
      asked.incrementAndGet();
      return Future.succeededFuture(new JsonObject().put("callId", callId).put("state", "done").put("result",
        ToolResult.ok(callId, nodeId, new JsonObject().put("exitCode", 0), 5).toJson()));
    }
  }

  private static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
  }
}
