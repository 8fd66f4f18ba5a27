package io.fleetbus.node.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotEquals;

import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.state.AgentStatus;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.msg.ToolCall;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.nio.file.Path;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicReference;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

/** The node's own checks, which hold even for a call that never went through a hub. */
@ExtendWith(VertxExtension.class)
@Timeout(30)
class ToolDispatcherTest {

  private static NodeSettings settings(String tier) {
    return new NodeSettings("n1", "i1", tier, new JsonObject(), Path.of("."), 1000, List.of("echo"), 1024, 1000);
  }

  private static ToolCall call(String tool, JsonObject args) {
    return new ToolCall("c1", null, "alice", List.of("admin"), tool, args, "n1", null, 5000, false, null);
  }

  private static CallContext ctx(NodeSettings s) {
    return new CallContext("c1", "alice", s, AgentStatus.initial(0, 1000));
  }

  @Test
  void handlerRunsOffTheEventLoop(Vertx vertx, VertxTestContext test) {
    AtomicReference<String> thread = new AtomicReference<>();
    ToolDispatcher d = new ToolDispatcher(vertx, ToolCatalog.load(), Map.of("get_system_info", (args, c) -> {
      thread.set(Thread.currentThread().getName());
      return new JsonObject().put("ok", true);
    }), settings("root"));
    vertx.runOnContext(v -> d.dispatch(call("get_system_info", new JsonObject()), ctx(settings("root")))
      .onComplete(test.succeeding(r -> test.verify(() -> {
        assertEquals("ok", r.status());
        assertNotEquals(-1, thread.get().indexOf("worker"), thread.get());
        test.completeNow();
      }))));
  }

  @Test
  void anInstantHandlerRunsOnTheEventLoopAndItsCrashIs500(Vertx vertx, VertxTestContext test) {
    var checkpoint = test.checkpoint(2);
    AtomicReference<String> thread = new AtomicReference<>();
    ToolDispatcher d = new ToolDispatcher(vertx, ToolCatalog.load(), Map.of(
      "get_agent_health", (InstantToolHandler) (args, c) -> {
        thread.set(Thread.currentThread().getName());
        return new JsonObject().put("ok", true);
      },
      "get_system_info", (InstantToolHandler) (args, c) -> {
        throw new IllegalStateException("memory on fire");
      }), settings("root"));
    vertx.runOnContext(v -> {
      d.dispatch(call("get_agent_health", new JsonObject()), ctx(settings("root")))
        .onComplete(test.succeeding(r -> test.verify(() -> {
          assertEquals("ok", r.status());
          assertNotEquals(-1, thread.get().indexOf("eventloop"), thread.get());
          checkpoint.flag();
        })));
      d.dispatch(call("get_system_info", new JsonObject()), ctx(settings("root")))
        .onComplete(test.failing(err -> test.verify(() -> {
          assertEquals(FailureCode.TOOL_FAILED, FailureCode.of(err));
          assertEquals("get_system_info failed: memory on fire", err.getMessage());
          checkpoint.flag();
        })));
    });
  }

  @Test
  void aCancelledCallEndsCancelledNotFailed(Vertx vertx, VertxTestContext test) {
    NodeSettings s = settings("root");
    CallControl control = CallControl.detached("c1");
    ToolDispatcher d = new ToolDispatcher(vertx, ToolCatalog.load(), Map.of("get_agent_health", (args, c) -> {
      control.cancel("bob");
      throw new IllegalStateException("killed by the cancel");
    }), s);
    d.dispatch(call("get_agent_health", new JsonObject()), new CallContext("c1", "alice", s,
        AgentStatus.initial(0, 1000), control))
      .onComplete(test.succeeding(r -> test.verify(() -> {
        assertEquals("cancelled", r.status());
        assertEquals(null, r.errorCode());
        assertEquals("bob", r.data().getString("cancelledBy"));
        test.completeNow();
      })));
  }

  @Test
  void unprivilegedNodeRefusesTier3EvenWithoutAHub(Vertx vertx, VertxTestContext test) {
    NodeSettings s = settings("unprivileged");
    ToolDispatcher d = new ToolDispatcher(vertx, ToolCatalog.load(), Map.of("run_command", (args, c) -> {
      throw new AssertionError("must not run");
    }), s);
    d.dispatch(call("run_command", new JsonObject().put("command", "echo hi")), ctx(s))
      .onComplete(test.failing(err -> test.verify(() -> {
        assertEquals(FailureCode.FORBIDDEN, FailureCode.of(err));
        test.completeNow();
      })));
  }

  @Test
  void nodeValidatesArgumentsItself(Vertx vertx, VertxTestContext test) {
    ToolDispatcher d = new ToolDispatcher(vertx, ToolCatalog.load(), Map.of("get_running_processes", (args, c) -> {
      throw new AssertionError("must not run");
    }), settings("root"));
    d.dispatch(call("get_running_processes", new JsonObject().put("limit", -1)), ctx(settings("root")))
      .onComplete(test.failing(err -> test.verify(() -> {
        assertEquals(FailureCode.BAD_REQUEST, FailureCode.of(err));
        test.completeNow();
      })));
  }

  @Test
  void toolWithoutHandlerIs404AndCrashIs500(Vertx vertx, VertxTestContext test) {
    var checkpoint = test.checkpoint(2);
    ToolDispatcher d = new ToolDispatcher(vertx, ToolCatalog.load(), Map.of("get_disk_usage", (args, c) -> {
      throw new IllegalStateException("disk on fire");
    }), settings("root"));
    d.dispatch(call("get_system_info", new JsonObject()), ctx(settings("root")))
      .onComplete(test.failing(err -> test.verify(() -> {
        assertEquals(FailureCode.NOT_FOUND, FailureCode.of(err));
        checkpoint.flag();
      })));
    d.dispatch(call("get_disk_usage", new JsonObject()), ctx(settings("root")))
      .onComplete(test.failing(err -> test.verify(() -> {
        assertEquals(FailureCode.TOOL_FAILED, FailureCode.of(err));
        assertEquals("get_disk_usage failed: disk on fire", err.getMessage());
        checkpoint.flag();
      })));
  }

  @Test
  void asyncToolWaitsWithoutHoldingTheOnlyWorker(VertxTestContext test) {
    Vertx oneWorker = Vertx.vertx(new io.vertx.core.VertxOptions().setWorkerPoolSize(1));
    java.util.concurrent.CompletableFuture<JsonObject> later = new java.util.concurrent.CompletableFuture<>();
    ToolDispatcher d = new ToolDispatcher(oneWorker, ToolCatalog.load(), Map.of(
      "job_wait", (AsyncToolHandler) (args, c) -> later.thenApply(j -> j),
      "get_agent_health", (args, c) -> new JsonObject().put("ok", true),
      "job_status", (AsyncToolHandler) (args, c) -> java.util.concurrent.CompletableFuture.<JsonObject>failedFuture(
        FailureCode.NOT_FOUND.exception("no job 'x'")).thenApply(j -> j)), settings("root"));
    oneWorker.runOnContext(v -> {
      d.dispatch(call("job_wait", new JsonObject().put("job_id", "j1")), ctx(settings("root")))
        .onComplete(test.succeeding(r -> test.verify(() -> {
          assertEquals("completed", r.data().getString("status"));
          d.dispatch(call("job_status", new JsonObject().put("job_id", "x")), ctx(settings("root")))
            .onComplete(test.failing(err -> test.verify(() -> {
              assertEquals(FailureCode.NOT_FOUND, FailureCode.of(err), "the code survives the completion stage");
              oneWorker.close();
              test.completeNow();
            })));
        })));
      // the single worker is free while job_wait waits: this sync tool runs, then releases the wait
      d.dispatch(call("get_agent_health", new JsonObject()), ctx(settings("root")))
        .onComplete(test.succeeding(r -> later.complete(new JsonObject().put("status", "completed"))));
    });
  }
}
