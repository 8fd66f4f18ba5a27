package io.fleetbus.node.grant;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.settings.ToolSettings;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Matcher;
import java.util.regex.Pattern;
import java.util.stream.Collectors;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;

/**
 * The tier table of docs/security.md says what each capability tier's files are; here the node's own grant object of
 * each tier is built from a conf and the table's files column is checked against it, so the two cannot drift.
 */
class GrantTierTableTest {
  private static final Pattern ROW = Pattern.compile("^\\| `(root|sudo|unprivileged)` \\| [^|]* \\| ([^|]*) \\|",
    Pattern.MULTILINE);
  private static final Pattern ABSOLUTE = Pattern.compile("`(/[^`]*)`");

  @TempDir
  Path dir;

  static Map<String, String> filesColumn() throws Exception {
    Path p = Path.of("").toAbsolutePath();
    while (!Files.exists(p.resolve("docs/security.md"))) {
      p = p.getParent();
    }
    Map<String, String> rows = new LinkedHashMap<>();
    Matcher m = ROW.matcher(Files.readString(p.resolve("docs/security.md")));
    while (m.find()) {
      rows.put(m.group(1), m.group(2));
    }
    return rows;
  }

  private NodeGrant grant(String tier) throws Exception {
    Path allow = Files.createDirectories(dir.resolve("allow"));
    Path deny = Files.createDirectories(allow.resolve("deny"));
    Path sandbox = Files.createDirectories(dir.resolve("sandbox"));
    Path data = Files.createDirectories(allow.resolve("data"));
    JsonObject conf = new JsonObject().put("paths", new JsonObject().put("allow", new JsonArray().add(allow.toString()))
      .put("deny", new JsonArray().add(deny.toString())).put("sandboxDir", sandbox.toString()));
    return NodeGrant.of(new NodeSettings("n", "i1", tier, new JsonObject(), data, 1000, List.of(), 4096, 1000,
      ToolSettings.fromConf(conf, data)));
  }

  private static Set<String> systemFoldersNamed(String cell) {
    Set<String> named = new TreeSet<>();
    // "(default `/`)" names paths.allow's default, checked on its own
    Matcher m = ABSOLUTE.matcher(cell.replace("(default `/`)", ""));
    while (m.find()) {
      named.add(m.group(1));
    }
    return named;
  }

  @Test
  void theTierTableSaysWhatEachTiersGrantHolds() throws Exception {
    Map<String, String> table = filesColumn();
    assertEquals(Set.of("root", "sudo", "unprivileged"), table.keySet(), "the tier table's rows: " + table);
    for (Map.Entry<String, String> row : table.entrySet()) {
      NodeGrant g = grant(row.getKey());
      String cell = row.getValue();
      // every tier: the node's own data folder is private, whatever the scope says
      assertTrue(cell.contains("never a fleetbus private folder"), row.getKey() + ": " + cell);
      assertTrue(g.privateFolders().named().contains(dir.resolve("allow/data").toAbsolutePath()), row.getKey()
        + " grant names its data folder private: " + g.toJson().encode());
      Set<String> systemDenied = NodeGrant.SYSTEM_PATHS.stream().filter(s -> g.denied().contains(Path.of(s)))
        .collect(Collectors.toCollection(TreeSet::new));
      assertEquals(systemFoldersNamed(cell), systemDenied, row.getKey() + ": the system folders the table names are"
        + " those the grant denies");
      if (row.getKey().equals("unprivileged")) {
        assertTrue(cell.contains("only `paths.sandboxDir`"), cell);
        assertEquals(Set.of(dir.resolve("sandbox").toRealPath()), Set.copyOf(g.allowed()), g.toJson().encode());
      } else {
        assertTrue(cell.contains("`paths.allow`") || cell.startsWith("as root"), cell);
        if (cell.contains("(default `/`)")) {
          assertEquals(List.of(Path.of("/")), ToolSettings.defaults(dir.resolve("d")).allowedRoots());
        }
        assertTrue(g.allowed().contains(dir.resolve("allow").toRealPath()), g.toJson().encode());
        assertTrue(g.denied().contains(dir.resolve("allow/deny").toRealPath()), "paths.deny: " + g.toJson().encode());
      }
    }
  }
}
