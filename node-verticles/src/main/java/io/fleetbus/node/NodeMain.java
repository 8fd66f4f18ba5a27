package io.fleetbus.node;

import io.fleetbus.node.tools.ToolDispatcher;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.command.CommandAllowlist;
import io.fleetbus.node.tools.command.ProcessRunner;
import io.fleetbus.node.tools.command.RunCommandTool;
import io.fleetbus.node.tools.system.SystemProbe;
import io.fleetbus.node.tools.system.SystemTools;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.cluster.ClusterLauncher;
import io.fleetbus.shared.cluster.ConfFiles;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
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

  public static void main(String[] args) throws Exception {
    JsonObject conf = ConfFiles.load(args, "conf/node.json");
    NodeSettings settings = NodeSettings.fromConf(conf);
    Files.createDirectories(settings.dataDir());
    SystemProbe probe = new SystemProbe();
    ClusterLauncher.start(conf, true)
      .compose(member -> deploy(member, settings, probe)
        .onSuccess(id -> {
          LOG.info("node agent started [node: {}, tier: {}, cluster: {}]", settings.nodeId(), settings.capabilityTier(),
            member.clusterManager().getHazelcastInstance().getConfig().getClusterName());
          Runtime.getRuntime().addShutdownHook(new Thread(() -> closeQuietly(member.vertx()), "fleetbus-node-stop"));
        }))
      .onFailure(err -> {
        LOG.error("node agent failed to start: {}", err.getMessage(), err);
        System.exit(1);
      });
  }

  static Future<String> deploy(ClusterLauncher.Member member, NodeSettings settings, SystemProbe probe) {
    Vertx vertx = member.vertx();
    Map<String, ToolHandler> handlers = new HashMap<>(SystemTools.handlers(probe, NodeAgentVerticle.AGENT_VERSION));
    handlers.put("run_command", new RunCommandTool(new CommandAllowlist(settings.allowlist()),
      new ProcessRunner(settings.outputCapBytes())));
    ToolDispatcher dispatcher = new ToolDispatcher(vertx, ToolCatalog.load(), handlers, settings);
    return vertx.deployVerticle(new NodeAgentVerticle(settings, dispatcher, probe,
      member.clusterManager().getHazelcastInstance()));
  }

  private static void closeQuietly(Vertx vertx) {
    try {
      vertx.close().toCompletionStage().toCompletableFuture().get(5, java.util.concurrent.TimeUnit.SECONDS);
    } catch (Exception e) {
      LOG.warn("node did not stop cleanly within 5 s: {}", e.toString());
    }
  }
}
