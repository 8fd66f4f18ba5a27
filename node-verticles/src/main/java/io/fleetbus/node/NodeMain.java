package io.fleetbus.node;

import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.command.CommandAllowlist;
import io.fleetbus.node.tools.command.ProcessRunner;
import io.fleetbus.node.tools.command.RunCommandTool;
import io.fleetbus.node.tools.system.SystemProbe;
import io.fleetbus.node.tools.system.SystemTools;
import io.fleetbus.node.trust.NodeTrust;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.cluster.ConfFiles;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.util.HashMap;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Starts a node agent: {@code java -jar node.jar -conf conf/node.json}. */
public final class NodeMain {
  private static final Logger LOG = LoggerFactory.getLogger(NodeMain.class);

  private NodeMain() {
  }

  public static void main(String[] args) {
    try {
      JsonObject conf = ConfFiles.load(args, "conf/node.json");
      NodeSettings settings = NodeSettings.fromConf(conf);
      Files.createDirectories(settings.dataDir());
      SystemProbe probe = new SystemProbe();
      ToolCatalog catalog = ToolCatalog.load();
      NodeTrust trust = NodeTrust.load(settings.nodeId(), settings.dataDir(), enrollmentToken(conf), catalog);
      NodeSupervisor supervisor = new NodeSupervisor(conf, settings, handlers(settings, probe), probe, catalog, trust);
      Runtime.getRuntime().addShutdownHook(new Thread(supervisor::stop, "fleetbus-node-stop"));
      supervisor.start();
    } catch (Exception e) {
      LOG.error("node agent failed to start: {}", e.getMessage(), e);
      System.exit(1);
    }
  }

  /** The one-time token for the first hello; ignored once the node holds a credential. */
  private static String enrollmentToken(JsonObject conf) {
    String fromEnv = System.getenv("FLEETBUS_ENROLLMENT_TOKEN");
    return fromEnv != null && !fromEnv.isBlank() ? fromEnv : conf.getString("enrollmentToken");
  }

  /** Every tool this node serves, by catalogue name. */
  static Map<String, ToolHandler> handlers(NodeSettings settings, SystemProbe probe) {
    Map<String, ToolHandler> handlers = new HashMap<>(SystemTools.handlers(probe, NodeAgentVerticle.AGENT_VERSION));
    handlers.put("run_command", new RunCommandTool(new CommandAllowlist(settings.allowlist()),
      new ProcessRunner(settings.outputCapBytes())));
    return handlers;
  }
}
