package io.fleetbus.hub.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.hub.registry.RegistryBus;
import io.fleetbus.hub.registry.RegistryNotAsked;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.msg.Codecs;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.util.List;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VertxExtension.class)
@Timeout(30)
class HubToolsVerticleTest {
  private static final ToolCatalog CATALOG = ToolCatalog.load();

  @BeforeEach
  void deploy(Vertx vertx, VertxTestContext test) {
    Codecs.register(vertx);
    JsonObject twoNodes = new JsonObject().put("nodes", new JsonArray()
      .add(new JsonObject().put("nodeId", "a").put("online", true).put("capabilityTier", "root").put("platform", "linux"))
      .add(new JsonObject().put("nodeId", "b").put("online", false).put("capabilityTier", "sudo").put("platform", "linux")));
    RegistryBus.serve(vertx, new ListOnlyRegistry(twoNodes))
      .compose(v -> vertx.deployVerticle(new HubToolsVerticle(CATALOG)))
      .onComplete(test.succeedingThenComplete());
  }

  /** A registry that only lists (the hub tools ask nothing else of it). */
  private static final class ListOnlyRegistry extends RegistryNotAsked {
    private final JsonObject nodes;

    ListOnlyRegistry(JsonObject nodes) {
      super("the hub tools");
      this.nodes = nodes;
    }

    @Override
    public Future<JsonObject> list() {
      return Future.succeededFuture(nodes);
    }
  }

  private static Future<JsonObject> call(Vertx vertx, List<String> roles, String tool, JsonObject args) {
    JsonObject validated = CATALOG.validate(CATALOG.require(tool), args);
    ToolCall c = new ToolCall("c-" + tool, null, "tester", roles, tool, validated, null, null, 5000, false, null);
    return vertx.eventBus().<ToolResult>request(Addresses.HUB_TOOLS, c, new DeliveryOptions().setLocalOnly(true))
      .map(Message::body).map(ToolResult::data);
  }

  @Test
  void aViewerSeesOnlyTierOneTools(Vertx vertx, VertxTestContext test) {
    call(vertx, List.of("viewer"), "list_tools", new JsonObject()).onComplete(test.succeeding(r -> test.verify(() -> {
      List<String> names = r.getJsonArray("tools").stream().map(t -> ((JsonObject) t).getString("name")).toList();
      assertTrue(names.contains("read_file"));
      assertFalse(names.contains("run_command"));
      assertFalse(names.contains("manage_process"));
      test.completeNow();
    })));
  }

  @Test
  void searchRanksNameMatchesFirstAndSchemaSaysWhetherCallable(Vertx vertx, VertxTestContext test) {
    call(vertx, List.of("admin"), "search_tools", new JsonObject().put("query", "reboot"))
      .compose(r -> {
        List<String> names = r.getJsonArray("tools").stream().map(t -> ((JsonObject) t).getString("name")).toList();
        test.verify(() -> assertEquals(List.of("cancel_reboot", "check_pending_reboot", "reboot_machine"), names.subList(0, 3)));
        return call(vertx, List.of("viewer"), "get_tool_schema", new JsonObject().put("tool", "cmd.run"));
      })
      .onComplete(test.succeeding(schema -> test.verify(() -> {
        assertEquals("run_command", schema.getString("name"));
        assertFalse(schema.getBoolean("callable"));
        test.completeNow();
      })));
  }

  @Test
  void listNodesFilters(Vertx vertx, VertxTestContext test) {
    call(vertx, List.of("viewer"), "list_nodes", new JsonObject().put("online", false))
      .onComplete(test.succeeding(r -> test.verify(() -> {
        assertEquals(1, r.getInteger("count"));
        assertEquals("b", r.getJsonArray("nodes").getJsonObject(0).getString("nodeId"));
        test.completeNow();
      })));
  }

  @Test
  void siteLogsKeepRecentEventsWithLevels(Vertx vertx, VertxTestContext test) {
    vertx.eventBus().publish(Addresses.EVENTS, new JsonObject().put("type", "node.online").put("nodeId", "a"));
    vertx.eventBus().publish(Addresses.EVENTS, new JsonObject().put("type", "node.offline").put("nodeId", "a"));
    vertx.eventBus().publish(Addresses.EVENTS, new JsonObject().put("type", "process.crashed").put("nodeId", "a")
      .put("name", "web").put("exitCode", 3));
    vertx.eventBus().publish(Addresses.EVENTS, new JsonObject().put("type", "job.stalled").put("nodeId", "a")
      .put("jobId", "j1").put("principal", "someone-else").put("silentForMs", 600_000));
    vertx.eventBus().publish(Addresses.EVENTS, new JsonObject().put("type", "approval.decided").put("status", "denied")
      .put("requester", "someone-else"));
    // publishes are delivered in order on this verticle's context, before the call below
    call(vertx, List.of("approver"), "get_site_logs", new JsonObject().put("level", "warning"))
      .compose(warn -> {
        test.verify(() -> {
          assertEquals(4, warn.getInteger("count"), warn.encode());
          assertEquals("approval.decided", warn.getJsonArray("events").getJsonObject(0).getString("action"), "newest first");
          assertEquals("job.stalled", warn.getJsonArray("events").getJsonObject(1).getString("action"), warn.encode());
          assertEquals("process.crashed", warn.getJsonArray("events").getJsonObject(2).getString("action"), warn.encode());
        });
        return call(vertx, List.of("viewer"), "get_site_logs", new JsonObject().put("level", "warning"));
      })
      .compose(viewerSees -> {
        test.verify(() -> assertEquals(2, viewerSees.getInteger("count"), "another user's approval and job (issue 32) are"
          + " not a viewer's to read: " + viewerSees.encode()));
        return call(vertx, List.of("viewer"), "get_site_logs", new JsonObject().put("action", "node.online").put("limit", 5));
      })
      .onComplete(test.succeeding(online -> test.verify(() -> {
        assertEquals(1, online.getInteger("count"));
        assertEquals("info", online.getJsonArray("events").getJsonObject(0).getString("level"));
        test.completeNow();
      })));
  }

  @Test
  void aNodeToolSentHereIsRefused(Vertx vertx, VertxTestContext test) {
    ToolCall c = new ToolCall("c1", null, "t", List.of("admin"), "read_file", new JsonObject().put("path", "/x"), null, null,
      5000, false, null);
    vertx.eventBus().request(Addresses.HUB_TOOLS, c).onComplete(test.failing(err -> test.verify(() -> {
      assertEquals(400, ((ReplyException) err).failureCode());
      test.completeNow();
    })));
  }
}
