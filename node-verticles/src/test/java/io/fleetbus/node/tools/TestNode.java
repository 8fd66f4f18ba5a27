package io.fleetbus.node.tools;

import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.settings.ToolSettings;
import io.fleetbus.node.state.AgentStatus;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.catalog.ToolSpec;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.List;

/** Node settings over temp folders, and a synchronous way to run one handler the way the dispatcher would. */
public final class TestNode {
  public static final ToolCatalog CATALOG = ToolCatalog.load();

  private TestNode() {
  }

  /** A node of this tier whose data and sandbox live under {@code dir}; {@code conf} adds tool settings. */
  public static NodeSettings settings(String tier, Path dir, JsonObject conf) {
    JsonObject c = conf == null ? new JsonObject() : conf.copy();
    JsonObject paths = c.getJsonObject("paths", new JsonObject());
    if (!paths.containsKey("sandboxDir")) {
      paths.put("sandboxDir", dir.resolve("sandbox").toString());
    }
    c.put("paths", paths);
    Path data = dir.resolve("data");
    return new NodeSettings("test-node", "i1", tier, new JsonObject(), data, 1000,
      List.of("echo", "cat", "ls", "sleep"), 50 * 1024, 1000, ToolSettings.fromConf(c, data));
  }

  public static CallContext ctx(NodeSettings s) {
    return new CallContext("c1", "tester", s, AgentStatus.initial(0, 1000));
  }

  /** Validates the arguments against the tool's schema (defaults filled) and runs the handler. */
  public static JsonObject run(ToolHandler handler, String tool, JsonObject args, NodeSettings s) throws Exception {
    ToolSpec spec = CATALOG.require(tool);
    return ResultCap.apply(handler.run(CATALOG.validate(spec, args), ctx(s)), s.tools().resultCapBytes());
  }
}
