package io.fleetbus.node.processes;

import io.fleetbus.shared.files.AtomicFiles;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Collection;
import java.util.List;

/** The managed processes on disk: one JSON file, rewritten whole and atomically after every change. */
final class ProcessStore {
  private final Path file;

  ProcessStore(Path dir) {
    this.file = dir.resolve("processes.json");
  }

  List<ManagedProcess> load() throws IOException {
    AtomicFiles.privateDir(file.getParent());
    AtomicFiles.removeLeftovers(file.getParent());
    JsonObject json = AtomicFiles.readJson(file);
    List<ManagedProcess> all = new ArrayList<>();
    if (json == null) {
      return all;
    }
    for (Object o : json.getJsonArray("processes", new JsonArray())) {
      JsonObject entry = (JsonObject) o;
      ManagedProcess mp = new ManagedProcess(ProcessConfig.fromJson(entry.getJsonObject("config")));
      mp.restore(entry.getJsonObject("runtime"));
      all.add(mp);
    }
    return all;
  }

  void save(Collection<ManagedProcess> all) throws IOException {
    JsonArray list = new JsonArray();
    for (ManagedProcess mp : all) {
      list.add(new JsonObject().put("config", mp.config.toJson()).put("runtime", mp.runtimeJson()));
    }
    AtomicFiles.writeJson(file, new JsonObject().put("version", 1).put("processes", list));
  }
}
