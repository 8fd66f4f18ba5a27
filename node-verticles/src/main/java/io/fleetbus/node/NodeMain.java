package io.fleetbus.node;

import io.fleetbus.node.jobs.JobManager;
import io.fleetbus.node.jobs.JobTools;
import io.fleetbus.node.processes.ManagedProcesses;
import io.fleetbus.node.processes.ProcessTools;
import io.fleetbus.node.processes.RelaunchPolicy;
import io.fleetbus.node.tools.NodeTools;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.logs.AgentLogFile;
import io.fleetbus.node.tools.system.SystemProbe;
import io.fleetbus.shared.cluster.ConfFiles;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.time.Clock;
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
      RuntimeConfig runtime = RuntimeConfig.load(settings);
      // processes and jobs outlive any one cluster membership: the supervisor may replace Vert.x
      NodeBus bus = new NodeBus(settings.nodeId());
      Clock clock = Clock.systemDefaultZone();
      ManagedProcesses processes = ManagedProcesses.open(settings.dataDir().resolve("processes"), bus, clock,
        RelaunchPolicy.DEFAULT);
      JobManager jobs = JobManager.open(settings.dataDir().resolve("jobs"), bus, clock, JobManager.DEFAULT_LOG_CAP_BYTES);
      NodeSupervisor supervisor = new NodeSupervisor(conf, settings, runtime,
        handlers(settings, runtime, probe, processes, jobs), probe, bus);
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        supervisor.stop();
        processes.close();
        jobs.close();
      }, "fleetbus-node-stop"));
      supervisor.start();
    } catch (Exception e) {
      LOG.error("node agent failed to start: {}", e.getMessage(), e);
      System.exit(1);
    }
  }

  /** Every tool this node serves, by catalogue name. */
  static Map<String, ToolHandler> handlers(NodeSettings settings, RuntimeConfig runtime, SystemProbe probe,
                                           ManagedProcesses processes, JobManager jobs) {
    Map<String, ToolHandler> handlers = new HashMap<>(NodeTools.handlers(settings, runtime, probe,
      NodeAgentVerticle.AGENT_VERSION));
    handlers.putAll(ProcessTools.handlers(processes));
    handlers.putAll(JobTools.handlers(jobs));
    return handlers;
  }
}
