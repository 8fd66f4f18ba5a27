package io.fleetbus.node;

import io.fleetbus.node.tools.NodeTools;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.logs.AgentLogFile;
import io.fleetbus.node.tools.system.SystemProbe;
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
      AgentLogFile.install(settings.dataDir());
      SystemProbe probe = new SystemProbe();
      NodeSupervisor supervisor = new NodeSupervisor(conf, settings, handlers(settings, probe), probe);
      Runtime.getRuntime().addShutdownHook(new Thread(supervisor::stop, "fleetbus-node-stop"));
      supervisor.start();
    } catch (Exception e) {
      LOG.error("node agent failed to start: {}", e.getMessage(), e);
      System.exit(1);
    }
  }

  /** Every tool this node serves, by catalogue name. */
  static Map<String, ToolHandler> handlers(NodeSettings settings, SystemProbe probe) {
    Map<String, ToolHandler> handlers = new HashMap<>(NodeTools.handlers(settings, probe, NodeAgentVerticle.AGENT_VERSION));
    return handlers;
  }
}
