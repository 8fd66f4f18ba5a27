package io.fleetbus.node.processes;

import io.fleetbus.node.state.NodeBus;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Clock;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's managed processes by name, in the order they were added: lookup, the view the tools show,
 * saving (every change is on disk before a tool answers) and the events a change publishes. Touched
 * only on the supervisor's owner thread.
 */
final class ProcessTable {
  private static final Logger LOG = LoggerFactory.getLogger(ProcessTable.class);

  final Map<String, ManagedProcess> processes = new LinkedHashMap<>();
  final NodeBus bus;
  private final ProcessStore store;
  private final ProcessLauncher launcher;
  private final Clock clock;

  ProcessTable(ProcessStore store, ProcessLauncher launcher, NodeBus bus, Clock clock) {
    this.store = store;
    this.launcher = launcher;
    this.bus = bus;
    this.clock = clock;
  }

  boolean isCurrent(ManagedProcess mp) {
    return processes.get(mp.config.name()) == mp;
  }

  void rename(String oldName, ManagedProcess mp) {
    List<ManagedProcess> order = new ArrayList<>(processes.values());
    processes.clear();
    order.forEach(p -> processes.put(p == mp ? mp.config.name() : p.config.name(), p));
    LOG.info("managed process renamed [from: {}, to: {}]", oldName, mp.config.name());
  }

  ManagedProcess require(String name) {
    ManagedProcess mp = processes.get(name);
    if (mp == null) {
      throw FailureCode.NOT_FOUND.exception("no managed process named '" + name + "' on node " + bus.nodeId()
        + "; get_process_list shows the configured ones " + processes.keySet());
    }
    return mp;
  }

  JsonObject view(ManagedProcess mp) {
    JsonObject v = mp.view(clock.instant());
    try {
      v.put("logFile", launcher.logFile(mp.config.name()).toString());
    } catch (IOException e) {
      LOG.debug("no log folder for {}", mp.config.name(), e);
    }
    return v;
  }

  static JsonObject withWarnings(JsonObject view, ProcessConfig config) {
    if (!Files.isExecutable(Path.of(config.exePath()))) {
      view.put("warnings", new JsonArray().add("exe_path " + config.exePath()
        + " is not an executable file on this node yet"));
    }
    return view;
  }

  void publish(String type, ManagedProcess mp, JsonObject details) {
    bus.publishEvent(details.copy().put("type", type).put("name", mp.config.name()).put("restarts", mp.restarts));
  }

  void save() {
    try {
      store.save(processes.values());
    } catch (IOException e) {
      LOG.error("managed processes not saved [reason: {}]", e.getMessage());
      throw FailureCode.TOOL_FAILED.exception("cannot save the managed processes on node " + bus.nodeId() + ": "
        + e.getMessage());
    }
  }
}
