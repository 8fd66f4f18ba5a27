package io.fleetbus.node.boot;

import io.fleetbus.node.confine.Confinement;
import io.fleetbus.node.jobs.JobManager;
import io.fleetbus.node.jobs.JobTools;
import io.fleetbus.node.processes.ManagedProcesses;
import io.fleetbus.node.processes.ProcessTools;
import io.fleetbus.node.processes.RelaunchPolicy;
import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.settings.RuntimeConfig;
import io.fleetbus.node.state.NodeBus;
import io.fleetbus.node.tools.NodeTools;
import io.fleetbus.node.tools.ToolHandler;
import io.fleetbus.node.tools.logs.AgentLogFile;
import io.fleetbus.node.tools.system.SystemProbe;
import io.fleetbus.node.trust.NodeTrust;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.cluster.ConfFiles;
import io.fleetbus.shared.fault.FaultSwitches;
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

  private static final String LAUNCH_MECHANISM = "jdk.lang.Process.launchMechanism";

  private NodeMain() {
  }

  public static void main(String[] args) {
    // before anything starts a process: the JDK's default on Linux (posix_spawn) execs a helper that then execs the
    // program; vfork execs the program at once, about 1 ms less per command here (the JDK's own mechanism, same
    // inheritance: a Landlock-confined launcher thread's child is confined alike). -D on the command line wins.
    if (System.getProperty(LAUNCH_MECHANISM) == null) {
      System.setProperty(LAUNCH_MECHANISM, "VFORK");
    }
    HublessNoise.install();
    try {
      // read once, before anything else: a security switch outside a test run stops the node here, naming it
      FaultSwitches.active().refuseOutsideTests("node agent").log(LOG, "node agent");
      JsonObject loaded = ConfFiles.load(args, "conf/node.json");
      NodeSettings settings = NodeSettings.fromConf(loaded);
      io.fleetbus.shared.files.AtomicFiles.privateDir(settings.dataDir());
      io.fleetbus.shared.files.PrivateMarker.mark(settings.dataDir(), "node data folder (node " + settings.nodeId() + ")");
      // an edge node joins no cluster: it links to its hubs' edge endpoints instead
      io.fleetbus.node.edge.EdgeNodeSettings edge = io.fleetbus.node.edge.EdgeNodeSettings.fromConf(loaded);
      JsonObject conf = edge != null ? loaded : withClusterName(loaded, settings.dataDir());
      AgentLogFile.install(settings.dataDir());
      SystemProbe probe = new SystemProbe();
      RuntimeConfig runtime = RuntimeConfig.load(settings);
      ToolCatalog catalog = ToolCatalog.load();
      NodeTrust trust = NodeTrust.load(settings.nodeId(), settings.dataDir(), enrollmentToken(conf), catalog);
      // processes and jobs outlive any one cluster membership: the supervisor may replace Vert.x
      NodeBus bus = new NodeBus(settings.nodeId());
      bus.proveEventsWith(trust::proveEvent);
      Clock clock = Clock.systemDefaultZone();
      // one confinement for everything this node starts: tools and jobs strict, managed processes to the file scope
      Confinement confinement = settings.unprivileged() ? Confinement.NONE : Confinement.of(settings);
      confinement.limitOwnFileSize(); // inherited by every process it starts: no prlimit per start for that
      // what a previous run of this node left running is killed before anything new starts
      io.fleetbus.node.confine.ProcessTrees.get().ledgerIn(settings.dataDir());
      ManagedProcesses processes = ManagedProcesses.open(settings.dataDir().resolve("processes"), bus, clock,
        RelaunchPolicy.DEFAULT, confinement.managedSpawner(NodeTools.programs(settings, runtime)));
      JobManager jobs = JobManager.open(settings.dataDir().resolve("jobs"), bus, clock, JobManager.DEFAULT_LOG_CAP_BYTES);
      NodeSupervisor supervisor = new NodeSupervisor(conf, settings, runtime,
        handlers(settings, runtime, probe, processes, jobs, confinement), probe, bus, catalog, trust, confinement.toJson(),
        edge);
      Runtime.getRuntime().addShutdownHook(new Thread(() -> {
        supervisor.stop();
        processes.close();
        jobs.close();
      }, "fleetbus-node-stop"));
      supervisor.start();
    } catch (FaultSwitches.Refused e) {
      LOG.error("node agent failed to start: {}", e.getMessage());
      System.exit(1);
    } catch (Exception e) {
      LOG.error("node agent failed to start: {}", e.getMessage(), e);
      System.exit(1);
    }
  }

  /**
   * The fleet's cluster name: {@code FLEETBUS_CLUSTER_NAME}, else the conf's {@code cluster.name}, else the one this
   * node joined with last time (kept in its data folder). A hub's cluster name is {@code fleetbus-<fleetId>} unless
   * configured, so a node that was never told it cannot find its hub: it stops and says where to get it.
   */
  static JsonObject withClusterName(JsonObject conf, java.nio.file.Path dataDir) throws java.io.IOException {
    java.nio.file.Path kept = dataDir.resolve("cluster-name");
    String env = System.getenv("FLEETBUS_CLUSTER_NAME");
    JsonObject cluster = conf.getJsonObject("cluster", new JsonObject());
    String name = env != null && !env.isBlank() ? env.strip() : cluster.getString("name");
    if (name == null && java.nio.file.Files.exists(kept)) {
      name = java.nio.file.Files.readString(kept).strip();
    }
    if (name == null || name.isBlank()) {
      throw new IllegalStateException("no cluster name: set FLEETBUS_CLUSTER_NAME to your fleet's (the hub's GET /ready"
        + " shows it as checks[cluster].data.cluster; POST /api/v1/enrollments answers it as clusterName with the"
        + " token; scripts/install-node.sh --cluster-name)");
    }
    if (!java.nio.file.Files.exists(kept) || !name.equals(java.nio.file.Files.readString(kept).strip())) {
      io.fleetbus.shared.files.AtomicFiles.writePrivate(kept, name + "\n");
    }
    return conf.copy().put("cluster", cluster.copy().put("name", name));
  }

  /** The one-time token for the first hello; ignored once the node holds a credential. */
  private static String enrollmentToken(JsonObject conf) {
    String fromEnv = System.getenv("FLEETBUS_ENROLLMENT_TOKEN");
    return fromEnv != null && !fromEnv.isBlank() ? fromEnv : conf.getString("enrollmentToken");
  }

  /** Every tool this node serves, by catalogue name. */
  static Map<String, ToolHandler> handlers(NodeSettings settings, RuntimeConfig runtime, SystemProbe probe,
                                           ManagedProcesses processes, JobManager jobs, Confinement confinement) {
    // jobs run scripts like run_script: the same confinement, required where the tools require it
    jobs.confinedBy(confinement.jobSpawner(NodeTools.programs(settings, runtime)));
    Map<String, ToolHandler> handlers = new HashMap<>(NodeTools.handlers(settings, runtime, probe,
      NodeAgentVerticle.AGENT_VERSION, confinement));
    // add_process / update_process start only what run_command could (tier 2: nobody approves them)
    handlers.putAll(ProcessTools.handlers(processes.admit(new io.fleetbus.node.processes.ProcessPrograms(
      NodeTools.programs(settings, runtime), new io.fleetbus.node.tools.command.CommandRules(
        settings.tools().commandRules())))));
    handlers.putAll(JobTools.handlers(jobs));
    return handlers;
  }
}
