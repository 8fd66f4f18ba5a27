package io.fleetbus.node.jobs;

import io.fleetbus.shared.files.AtomicFiles;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.DirectoryStream;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.Comparator;
import java.util.List;
import java.util.stream.Stream;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/** Jobs on disk: a folder per job holding its record ({@code job.json}, written atomically) and its output. */
final class JobStore {
  private static final Logger LOG = LoggerFactory.getLogger(JobStore.class);

  private final Path root;

  JobStore(Path root) {
    this.root = root;
  }

  Path dir(String jobId) {
    return root.resolve(jobId);
  }

  void save(Job job) throws IOException {
    AtomicFiles.writeJson(dir(job.id).resolve("job.json"), job.toJson());
  }

  List<Job> loadAll() throws IOException {
    List<Job> jobs = new ArrayList<>();
    AtomicFiles.privateDir(root);
    try (DirectoryStream<Path> dirs = Files.newDirectoryStream(root, Files::isDirectory)) {
      for (Path dir : dirs) {
        AtomicFiles.removeLeftovers(dir);
        try {
          JsonObject json = AtomicFiles.readJson(dir.resolve("job.json"));
          if (json != null) {
            jobs.add(Job.fromJson(json));
          }
        } catch (IOException | RuntimeException e) {
          // one damaged record must not hide the others
          LOG.warn("job record skipped [dir: {}, reason: {}]", dir, e.getMessage());
        }
      }
    }
    return jobs;
  }

  void delete(String jobId) throws IOException {
    Path dir = dir(jobId);
    if (!Files.exists(dir)) {
      return;
    }
    try (Stream<Path> all = Files.walk(dir)) {
      for (Path p : all.sorted(Comparator.reverseOrder()).toList()) {
        Files.deleteIfExists(p);
      }
    }
  }
}
