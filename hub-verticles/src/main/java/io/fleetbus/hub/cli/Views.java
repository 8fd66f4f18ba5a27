package io.fleetbus.hub.cli;

import io.fleetbus.hub.cli.Text.Table;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;
import java.util.Comparator;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Locale;
import java.util.Map;

/** How each answer of the hub reads as text (the CLI's default; --json prints the answer itself). */
final class Views {
  private Views() {
  }

  private static List<JsonObject> list(JsonObject body, String field) {
    return body.getJsonArray(field, new JsonArray()).stream().map(JsonObject.class::cast).toList();
  }

  static void nodes(PrintWriter out, Text text, JsonObject body) {
    List<JsonObject> nodes = list(body, "nodes");
    if (nodes.isEmpty()) {
      out.println("No node has registered with this hub yet.");
      return;
    }
    Table t = new Table("node", "state", "tier", "platform", "labels", "cpu", "memory used", "disk free", "last heartbeat");
    for (JsonObject n : nodes) {
      JsonObject m = n.getJsonObject("metrics");
      t.row(n.getString("nodeId"), n.getBoolean("online", false) ? "online" : "offline", n.getString("capabilityTier"),
        n.getString("platform"), Text.labels(n.getJsonObject("labels")), m == null ? "—" : percent(m.getDouble("cpuPercent")),
        m == null ? "—" : Text.gb(m.getNumber("memoryMb")) + " / " + Text.gb(m.getNumber("memoryTotalMb")),
        m == null ? "—" : Text.gb(m.getNumber("diskFreeMb")), text.when(seen(n)));
    }
    t.print(out);
    long up = nodes.stream().filter(n -> n.getBoolean("online", false)).count();
    out.println(up + " of " + nodes.size() + " node" + (nodes.size() == 1 ? "" : "s") + " online");
  }

  private static Long seen(JsonObject n) {
    return n.getLong("lastHeartbeat") != null ? n.getLong("lastHeartbeat") : n.getLong("lastSeen");
  }

  private static String percent(Double v) {
    return v == null ? "—" : String.format(Locale.ROOT, "%.1f %%", v);
  }

  static void node(PrintWriter out, Text text, JsonObject n) {
    Map<String, Object> f = new LinkedHashMap<>();
    boolean online = n.getBoolean("online", false);
    f.put("node", n.getString("nodeId"));
    f.put("state", online ? "online" : "offline (last seen " + text.when(n.getLong("lastSeen")) + ")");
    JsonObject c = n.getJsonObject("confinement");
    f.put("tier", n.getString("capabilityTier") + (c == null ? "" : ", confinement " + c.getString("mode")
      + (c.getString("reason") == null ? "" : " (" + c.getString("reason") + ")")));
    f.put("platform", n.getString("platform") + (n.getString("agentVersion") == null ? "" : ", agent " + n.getString("agentVersion")));
    f.put("labels", Text.labels(n.getJsonObject("labels")));
    f.put("first seen", text.when(n.getLong("firstSeen")));
    f.put("last heartbeat", text.when(n.getLong("lastHeartbeat")));
    JsonObject m = n.getJsonObject("metrics");
    if (m != null) {
      f.put("cpu", percent(m.getDouble("cpuPercent")));
      f.put("memory used", Text.gb(m.getNumber("memoryMb")) + " of " + Text.gb(m.getNumber("memoryTotalMb")));
      f.put("disk free", Text.gb(m.getNumber("diskFreeMb")));
      f.put("uptime", m.getLong("uptimeSeconds") == null ? "—" : Text.uptime(m.getLong("uptimeSeconds")));
      f.put("load", m.getDouble("loadAverage") == null ? "—" : String.format(Locale.ROOT, "%.2f", m.getDouble("loadAverage")));
    }
    JsonArray tools = n.getJsonArray("tools", new JsonArray());
    f.put("tools (" + tools.size() + ")", wrap(tools.stream().map(String::valueOf).toList(), 90));
    Text.fields(out, f);
    List<JsonObject> lifecycle = list(n, "lifecycle");
    if (!lifecycle.isEmpty()) {
      out.println();
      Table t = new Table("when", "lifecycle", "reason");
      lifecycle.forEach(e -> t.row(text.when(e.getLong("at")), e.getString("event"), Text.orDash(e.getString("reason"))));
      t.print(out);
    }
  }

  /** Words joined by ", " in lines of at most {@code width}. */
  private static String wrap(List<String> words, int width) {
    StringBuilder all = new StringBuilder();
    StringBuilder line = new StringBuilder();
    for (String w : words) {
      if (line.length() > 0 && line.length() + w.length() + 2 > width) {
        all.append(line).append(",\n");
        line.setLength(0);
      }
      line.append(line.length() > 0 ? ", " : "").append(w);
    }
    return all.append(line).toString();
  }

  static void tools(PrintWriter out, Text text, JsonObject body) {
    Table t = new Table("tool", "tier", "runs on", "platforms", "description");
    list(body, "tools").stream().sorted(Comparator.comparing(x -> x.getString("name")))
      .forEach(x -> t.row(x.getString("name"), x.getInteger("tier"), Text.orDash(x.getString("runsOn")),
        String.join(",", x.getJsonArray("platforms", new JsonArray()).stream().map(String::valueOf).toList()),
        x.getString("description")));
    t.print(out);
  }

  /** The answer to a call: its output, or the approval it waits for. */
  static void result(PrintWriter out, Text text, JsonObject r) {
    if ("pending_approval".equals(r.getString("status"))) {
      Map<String, Object> f = new LinkedHashMap<>();
      f.put("status", "pending approval (a second person decides)");
      f.put("approval", r.getString("approvalId"));
      f.put("call", r.getString("callId"));
      Text.fields(out, f);
      return;
    }
    out.println(r.getString("status") + " · node " + Text.orDash(r.getString("nodeId")) + " · "
      + Text.orDash(r.getValue("durationMs")) + " ms · call " + r.getString("callId"));
    text.data(out, r.getValue("data"));
  }

  /** A call's record (GET /api/v1/calls/{id}): who, where, when, then its output. */
  static void record(PrintWriter out, Text text, JsonObject r) {
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("call", r.getString("callId"));
    f.put("status", r.getString("status").replace('_', ' '));
    f.put("tool", r.getString("tool") + (r.getInteger("tier") == null ? "" : " (tier " + r.getInteger("tier") + ")"));
    f.put("node", Text.orDash(r.getString("nodeId")));
    f.put("by", Text.orDash(r.getString("principal")));
    if (r.getString("approvalId") != null) {
      f.put("approval", r.getString("approvalId"));
    }
    f.put("asked", text.when(r.getLong("createdAt")));
    f.put("finished", text.when(r.getLong("finishedAt")));
    if (r.getValue("durationMs") != null && r.getLong("finishedAt") != null) {
      f.put("ran", r.getValue("durationMs") + " ms");
    }
    Text.fields(out, f);
    if (r.getValue("data") != null) {
      out.println();
      text.data(out, r.getValue("data"));
    }
  }

  static void cancelled(PrintWriter out, Text text, JsonObject r) {
    if (!r.getBoolean("cancelled", false)) {
      Text.fields(out, flat(r));
    } else {
      out.println("call " + r.getString("callId") + (r.getBoolean("ran", false)
        ? " cancelled: it was running, its processes are stopped" : " withdrawn before it ran"));
    }
  }

  static void approvals(PrintWriter out, Text text, JsonObject body) {
    List<JsonObject> all = list(body, "approvals");
    if (all.isEmpty()) {
      out.println("No approvals.");
      return;
    }
    Table t = new Table("approval", "status", "tool", "node", "requester", "asked", "decided", "summary");
    for (JsonObject a : all) {
      boolean pending = "pending".equals(a.getString("status"));
      String decided = pending ? "expires " + text.relative(a.getLong("expiresAt", 0L))
        : Text.orDash(a.getString("decidedBy")) + (a.getString("reason") == null ? "" : ": " + a.getString("reason"));
      t.row(a.getString("approvalId"), a.getString("status"), a.getString("tool"), nodeOf(a), a.getString("requester"),
        text.when(a.getLong("requestedAt")), decided, Text.cut(a.getString("summary"), 50));
    }
    t.print(out);
  }

  private static String nodeOf(JsonObject a) {
    if (a.getString("nodeId") != null) {
      return a.getString("nodeId");
    }
    JsonObject selector = a.getJsonObject("selector");
    return selector == null ? "—" : "selected by " + selector.encode();
  }

  static void decided(PrintWriter out, Text text, JsonObject a) {
    out.println(a.getString("status") + " " + a.getString("approvalId") + " (call " + a.getString("callId") + ", "
      + a.getString("tool") + " on " + nodeOf(a) + ", asked by " + a.getString("requester") + ")");
  }

  static void enrolled(PrintWriter out, Text text, JsonObject e) {
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("token", e.getString("token"));
    f.put("node", Text.orDash(e.getString("nodeId")));
    f.put("expires", text.when(e.getLong("expiresAt")));
    f.put("cluster", Text.orDash(e.getString("clusterName")));
    Text.fields(out, f);
    out.println("(one use: the node passes it as FLEETBUS_ENROLLMENT_TOKEN on its first start)");
  }

  static void rekeyed(PrintWriter out, Text text, JsonObject r) {
    Map<String, Object> f = new LinkedHashMap<>();
    f.put("node", r.getString("nodeId"));
    f.put("rotated", text.when(r.getLong("rotatedAt")));
    f.put("old credential valid until", text.when(r.getLong("previousValidUntil")));
    Text.fields(out, f);
  }

  static void audit(PrintWriter out, Text text, JsonObject body) {
    List<JsonObject> records = list(body, "records");
    if (records.isEmpty()) {
      out.println("No audit entries match.");
      return;
    }
    Table t = new Table("#", "when", "who", "node", "tool", "tier", "decision", "outcome", "ms", "call");
    for (JsonObject r : records) {
      String decision = r.getString("decider") == null || "auto".equals(r.getString("decision")) ? r.getString("decision")
        : r.getString("decision") + " by " + r.getString("decider");
      t.row(r.getValue("seq"), text.when(r.getLong("at")), r.getString("principal"), Text.orDash(r.getString("nodeId")),
        r.getString("tool"), r.getValue("tier"), Text.orDash(decision),
        r.getValue("code") == null ? r.getString("outcome") : r.getString("outcome") + " " + r.getValue("code"),
        r.getValue("durationMs"), Text.orDash(r.getString("callId")));
    }
    t.print(out);
    out.println(records.size() + " entr" + (records.size() == 1 ? "y" : "ies") + ", newest first"
      + " (fleetbus result CALL shows a call's output)");
  }

  static void verified(PrintWriter out, Text text, JsonObject v) {
    JsonArray unaudited = v.getJsonArray("unaudited", new JsonArray());
    if (v.getBoolean("ok", false)) {
      String head = v.getString("head");
      out.println("audit chain intact: " + v.getValue("records") + " records verified"
        + (head == null ? "" : ", head " + head.substring(0, Math.min(12, head.length())) + "…"));
    } else {
      JsonObject at = v.getJsonObject("firstBroken", new JsonObject());
      out.println("audit chain BROKEN at record #" + at.getValue("seq") + ": " + at.getString("reason", "no reason given")
        + " (" + v.getValue("records") + " records before it verify)");
    }
    if (v.getValue("callsChecked") != null) {
      out.println(unaudited.isEmpty() ? "calls finished by this hub since it started: " + v.getValue("callsChecked")
        + ", each has its audit record"
        : "calls finished without an audit record: " + String.join(", ", unaudited.stream().map(String::valueOf).toList()));
    }
  }

  private static Map<String, Object> flat(JsonObject o) {
    Map<String, Object> f = new LinkedHashMap<>();
    o.forEach(e -> f.put(e.getKey(), Text.orDash(e.getValue())));
    return f;
  }
}
