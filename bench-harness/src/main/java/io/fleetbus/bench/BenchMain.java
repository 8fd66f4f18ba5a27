package io.fleetbus.bench;

import io.fleetbus.bench.proc.JvmLauncher;
import io.fleetbus.bench.report.ResultTable;
import io.fleetbus.bench.report.Results;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.HashMap;
import java.util.List;
import java.util.Map;

/**
 * Entry point of scripts/bench.sh: {@code java -jar bench-harness-fat.jar [--smoke] --root DIR --hub-jar …
 * --node-jar … --harness-jar … --jvm-flags "…" [--hub-flags "…"] [--node-flags "…"] [--profile]}. Prints the table, writes the results JSON,
 * exits 1 when a row failed. {@code --phases a,b} runs only those phases (floor, fleet, audit, ssh, scale, edge-scale,
 * …); such a partial run writes bench/work/results-partial.json, never the committed results. {@code --edge-nodes N}: the
 * edge-scale row's simulated edge nodes (default: the first scale step, 1,000). {@code --profile} records a JFR profile of every JVM started (bench/work/jfr).
 */
public final class BenchMain {
  private BenchMain() {
  }

  public static void main(String[] args) throws Exception {
    Map<String, String> opts = parse(args);
    Path root = Path.of(opts.getOrDefault("--root", ".")).toAbsolutePath().normalize();
    Path work = root.resolve(opts.getOrDefault("--work", "bench/work"));
    boolean smoke = opts.containsKey("--smoke");
    // a smoke or partial run must not overwrite the committed results of a full run
    String defaultOut = smoke ? "bench/work/results-smoke.json"
      : opts.containsKey("--phases") ? "bench/work/results-partial.json" : "bench/results.json";
    Path out = root.resolve(opts.getOrDefault("--out", defaultOut));
    List<String> flags = JvmLauncher.splitFlags(opts.get("--jvm-flags"));
    // the hub's and node's own memory flags (scripts/common.sh) come before the shared ones, so FLEETBUS_JAVA_OPTS wins
    JvmLauncher launcher = JvmLauncher.fatJars(Path.of(required(opts, "--hub-jar")), Path.of(required(opts, "--node-jar")),
      Path.of(required(opts, "--harness-jar")), flags).withRoleFlags(JvmLauncher.splitFlags(opts.get("--hub-flags")),
      JvmLauncher.splitFlags(opts.get("--node-flags")));
    Path jfr = opts.containsKey("--profile") ? work.resolve("jfr") : null;
    BenchSettings settings = smoke ? BenchSettings.smoke(root, work, out, launcher, jfr)
      : BenchSettings.full(root, work, out, launcher, jfr);
    if (opts.containsKey("--edge-nodes")) {
      settings = settings.withEdgeNodes(Integer.parseInt(opts.get("--edge-nodes")));
    }

    java.util.Set<String> phases = opts.containsKey("--phases")
      ? java.util.Set.of(opts.get("--phases").split(",")) : java.util.Set.of();
    Results results = BenchRun.run(settings, opts.getOrDefault("--command", "scripts/bench.sh"), phases);
    JsonObject json = results.toJson();
    results.write(out);
    System.out.println();
    System.out.print(ResultTable.render(json));
    System.out.println("\nresults: " + root.relativize(out) + "   logs: " + root.relativize(work.resolve("logs")));
    System.exit(results.anyFailed() ? 1 : 0);
  }

  private static Map<String, String> parse(String[] args) {
    Map<String, String> opts = new HashMap<>();
    for (int i = 0; i < args.length; i++) {
      if ("--smoke".equals(args[i]) || "--profile".equals(args[i])) {
        opts.put(args[i], "true");
      } else if (args[i].startsWith("--") && i + 1 < args.length) {
        opts.put(args[i], args[++i]);
      } else {
        throw new IllegalArgumentException("unknown argument " + args[i]);
      }
    }
    return opts;
  }

  private static String required(Map<String, String> opts, String name) {
    String v = opts.get(name);
    if (v == null) {
      throw new IllegalArgumentException("missing " + name + " (scripts/bench.sh passes it)");
    }
    return v;
  }
}
