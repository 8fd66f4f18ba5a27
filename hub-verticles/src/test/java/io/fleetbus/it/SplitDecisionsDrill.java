package io.fleetbus.it;

import io.fleetbus.it.PartitionTest.Answer;
import io.fleetbus.it.PartitionTest.Hub;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeMap;
import java.util.TreeSet;

/**
 * {@link PartitionTest}'s decision and idempotency phases (issue 34, items 2-4) across its real cut, where hub A is
 * cut off from both nodes and hub B keeps them. Before the cut two tier-3 calls to n1 wait for approval (P1, P2).
 * During the cut, once A lists n1 offline: P1 denied through A, then approved through B; P2 approved through A, then
 * denied through B — exactly one of each pair told success, the other 503 (A cannot reach n1: nothing stored) or 409;
 * a tier-1 call (K1) and a tier-3 call (K3, approved through B) keyed and sent through B, then through A. After the
 * heal: each loser's decision again through A (409 now), a second approval A made for K3 approved; then, until the
 * deadline, both hubs show each approval the one decision told success (its call ran once, a denied one never), each
 * key answers its one call through either hub, no record of these calls {@code running}, and both audits verify and
 * hold the same decision for each approval. Runs are counted by n1's own log ({@code privileged call started}).
 */
final class SplitDecisionsDrill {
  private static final Duration ASK = Duration.ofSeconds(15);
  private static final String N1 = "/api/v1/nodes/n1/tools/";

  private final Hub a;
  private final Hub b;
  private final TestFleet fleet;
  private final Path nodeLog;
  private final String tag = Long.toString(System.nanoTime(), 36);
  /** approval name (P1, P2, K3@hub-b, K3@hub-a) → its approval id and call id. */
  private final Map<String, Pending> approvals = new LinkedHashMap<>();
  /** approval name → the decision its user was told succeeded during the cut (200), if any. */
  private final Map<String, String> toldSuccess = new TreeMap<>();
  /** What each key's calls answered during the cut (hub → answer). */
  private final Map<String, Answer> k1 = new TreeMap<>();
  private final Map<String, Answer> k3 = new TreeMap<>();
  /** What the drill saw, for the test's line and the fault table. */
  final Map<String, Object> figures = new LinkedHashMap<>();

  record Pending(String approvalId, String callId) {
  }

  SplitDecisionsDrill(Hub a, Hub b, TestFleet fleet) {
    this.a = a;
    this.b = b;
    this.fleet = fleet;
    this.nodeLog = fleet.dir.resolve("node-n1.log");
  }

  /** P1 and P2: tier-3 calls to n1 asked through hub B, waiting for approval on both hubs. */
  void beforeTheCut(List<String> failed) {
    for (String name : List.of("P1", "P2")) {
      Answer parked = ask(b, N1 + "run_command", command(name), fleet.token());
      if (parked.status() != 202) {
        failed.add(name + " not parked for approval before the cut: " + parked.status() + " " + parked.body().encode());
        continue;
      }
      approvals.put(name, new Pending(parked.body().getString("approvalId"), parked.body().getString("callId")));
    }
  }

  /** The decisions on both sides and the keyed calls through both hubs, once hub A lists n1 offline. */
  void duringTheCut(List<String> failed) {
    long asked = System.currentTimeMillis();
    boolean offline = PartitionTest.until(asked + 20_000, () -> !PartitionTest.online(a, "n1")) <= asked + 20_000;
    figures.put("aSawN1OfflineWaitMs", System.currentTimeMillis() - asked);
    if (!offline) {
      failed.add("hub-a still lists n1 online during the cut");
    }
    if (approvals.size() == 2) {
      bothSides(failed, "P1", a, "deny", b, "approve");
      String p2 = "P2";
      Answer approveOnA = decide(a, p2, "approve");
      String storedOnA = status(a, approvals.get(p2).approvalId());
      bothSides(failed, p2, approveOnA, "approve", decide(b, p2, "deny"), "deny");
      if (approveOnA.status() != 503 || !message(approveOnA).contains("cannot confirm")) {
        failed.add("approve through hub-a (cut off from n1) during the cut: " + approveOnA.status() + " "
          + message(approveOnA) + " (503 'cannot confirm the decision with node n1' expected)");
      }
      if (!"pending".equals(storedOnA)) {
        failed.add("hub-a stored its refused approve of P2: it shows " + storedOnA + " (pending expected)");
      }
      figures.put("p2ApproveOnA", approveOnA.status() + " " + message(approveOnA) + "; then shown " + storedOnA);
    }
    String k1Key = "k1-" + tag;
    String k3Key = "k3-" + tag;
    for (Hub hub : List.of(b, a)) {
      k1.put(hub.name(), ask(hub, N1 + "get_agent_health", "{}", fleet.token(), "Idempotency-Key", k1Key));
      k3.put(hub.name(), ask(hub, N1 + "run_command", command("K3"), fleet.token(), "Idempotency-Key", k3Key));
      JsonObject parked = k3.get(hub.name()).body();
      if (parked.getString("approvalId") != null && approvals.values().stream()
          .noneMatch(p -> p.approvalId().equals(parked.getString("approvalId")))) {
        approvals.put("K3@" + hub.name(), new Pending(parked.getString("approvalId"), parked.getString("callId")));
      }
    }
    figures.put("keysDuringCut", "K1 " + summary(k1) + "; K3 " + summary(k3));
    if (approvals.containsKey("K3@hub-b")) {
      Answer approved = decide(b, "K3@hub-b", "approve");
      if (approved.status() == 200) {
        toldSuccess.put("K3@hub-b", "approved");
      } else {
        failed.add("the keyed tier-3 call's approval through hub-b during the cut: " + approved.status() + " "
          + message(approved));
      }
    } else {
      failed.add("the keyed tier-3 call through hub-b was not parked for approval: " + summary(k3));
    }
  }

  private void bothSides(List<String> failed, String name, Hub first, String firstDecision, Hub second,
                         String secondDecision) {
    bothSides(failed, name, decide(first, name, firstDecision), firstDecision, decide(second, name, secondDecision),
      secondDecision);
  }

  /** Exactly one of the two decisions told success; the other 409 or 503 with the documented reason. */
  private void bothSides(List<String> failed, String name, Answer first, String firstDecision, Answer second,
                         String secondDecision) {
    String seen = first.status() + " " + message(first) + " | " + second.status() + " " + message(second);
    figures.put(name, firstDecision + " then " + secondDecision + ": " + first.status() + ", " + second.status());
    int told = 0;
    for (Answer answer : List.of(first, second)) {
      if (answer.status() == 200) {
        told++;
        toldSuccess.put(name, (answer == first ? firstDecision : secondDecision).equals("approve") ? "approved" : "denied");
      } else if (!(answer.status() == 503 && message(answer).contains("cannot confirm")
          || answer.status() == 409 && message(answer).contains("already"))) {
        failed.add(name + ": a decision answered neither 200 nor the documented 409/503: " + seen);
      }
    }
    if (told != 1) {
      failed.add(name + " (" + firstDecision + " then " + secondDecision + " on the two sides of the cut): " + told
        + " users told their decision succeeded (exactly 1 expected): " + seen);
    }
  }

  /** The loser's decision again through hub A, the second approval A made for K3; then the checks until deadline. */
  void afterTheHeal(List<String> failed, long healedAt, long deadline) {
    Map<String, String> again = new TreeMap<>();
    if (approvals.containsKey("P1")) {
      again.put("P1 deny@hub-a", brief(decide(a, "P1", "deny")));
      again.put("P2 approve@hub-a", brief(decide(a, "P2", "approve")));
    }
    if (approvals.containsKey("K3@hub-a")) {
      again.put("K3@hub-a approve@hub-a", brief(decide(a, "K3@hub-a", "approve")));
    }
    figures.put("secondDecisionsAfterHeal", again);
    long settledMs = PartitionTest.until(deadline, () -> problems().isEmpty()) - healedAt;
    figures.put("decisionsSettledMs", settledMs);
    List<String> left = problems();
    failed.addAll(left);
    figures.put("after", left.isEmpty() ? "all held" : left.size() + " failed");
  }

  /** What does not hold yet (empty when every after-the-heal check holds). */
  private List<String> problems() {
    List<String> out = new ArrayList<>();
    Map<String, String> shown = new TreeMap<>();
    for (Map.Entry<String, Pending> e : approvals.entrySet()) {
      String onA = status(a, e.getValue().approvalId());
      String onB = status(b, e.getValue().approvalId());
      shown.put(e.getKey(), onA + "/" + onB);
      String told = toldSuccess.get(e.getKey());
      if (!onA.equals(onB) || told != null && !told.equals(onA)) {
        out.add(e.getKey() + " shows " + onA + " through hub-a and " + onB + " through hub-b; its user was told "
          + (told == null ? "nothing succeeded" : told));
      }
      int runs = runs(e.getValue().callId());
      if (runs > ("approved".equals(onB) ? 1 : 0)) {
        out.add(e.getKey() + " (" + onA + "/" + onB + ") ran " + runs + " times on n1");
      }
      if ("approved".equals(onB) && !ended(e.getValue().callId())) {
        out.add(e.getKey() + " approved: its call neither ran to its end nor ended with a reason: " + records(
          e.getValue().callId()));
      }
    }
    figures.put("approvalsAfter", shown);
    keyAnswers(out);
    audits(out);
    return out;
  }

  /** Each key answers its one call through either hub; the tier-3 key's calls ran once in all. */
  private void keyAnswers(List<String> out) {
    String k1Call = k1.get("hub-b").body().getString("callId");
    String k3Ran = approvals.containsKey("K3@hub-b") ? approvals.get("K3@hub-b").callId() : null;
    int k3Runs = approvals.entrySet().stream().filter(e -> e.getKey().startsWith("K3"))
      .mapToInt(e -> runs(e.getValue().callId())).sum();
    if (k3Runs != 1) {
      out.add("the keyed tier-3 call ran " + k3Runs + " times on n1 (its calls: " + approvals + ")");
    }
    Map<String, String> answered = new TreeMap<>();
    for (Hub hub : List.of(a, b)) {
      Answer one = ask(hub, N1 + "get_agent_health", "{}", fleet.token(), "Idempotency-Key", "k1-" + tag);
      Answer three = ask(hub, N1 + "run_command", command("K3"), fleet.token(), "Idempotency-Key", "k3-" + tag);
      answered.put("K1@" + hub.name(), one.status() + " " + ranAs(one));
      answered.put("K3@" + hub.name(), three.status() + " " + ranAs(three));
      if (one.status() != 200 || k1Call == null || !k1Call.equals(ranAs(one))) {
        out.add("K1 through " + hub.name() + " answers " + one.status() + " call " + ranAs(one) + " " + message(one)
          + " (200 for call " + k1Call + " expected)");
      }
      if (three.status() != 200 || k3Ran == null || !k3Ran.equals(ranAs(three))) {
        out.add("K3 through " + hub.name() + " answers " + three.status() + " call " + ranAs(three) + " "
          + message(three) + " (200 for call " + k3Ran + " expected)");
      }
    }
    figures.put("keysAfter", answered);
    for (String callId : List.of(k1Call == null ? "" : k1Call, k1.get("hub-a").body().getString("callId", ""))) {
      if (!callId.isEmpty() && records(callId).contains("running")) {
        out.add("K1's call " + callId + " still reads running: " + records(callId));
      }
    }
  }

  /** Both audits verify; for each approval, the decisions both audits hold are one, the one shown. */
  private void audits(List<String> out) {
    Map<String, Set<String>> decisions = new TreeMap<>();
    for (Hub hub : List.of(a, b)) {
      Answer verify = ask(hub, "GET", "/api/v1/audit/verify", null, fleet.token());
      if (!verify.body().getBoolean("ok", false)) {
        out.add(hub.name() + "'s audit does not verify: " + verify.status() + " " + verify.body().encode());
      }
      JsonArray records = ask(hub, "GET", "/api/v1/audit?node=n1&tool=run_command&limit=200", null, fleet.token())
        .body().getJsonArray("records", new JsonArray());
      for (Object o : records) {
        JsonObject r = (JsonObject) o;
        approvals.forEach((name, p) -> {
          if (p.approvalId().equals(r.getString("approvalId")) && r.getString("decision") != null) {
            decisions.computeIfAbsent(name, k -> new TreeSet<>()).add(r.getString("decision") + "@" + hub.name());
          }
        });
      }
    }
    figures.put("auditDecisions", decisions);
    decisions.forEach((name, held) -> {
      if (held.stream().map(d -> d.substring(0, d.indexOf('@'))).distinct().count() > 1) {
        out.add("the two audits disagree on " + name + ": " + held);
      }
    });
  }

  /** Whether each hub's record of the call says it ended (not running, not pending). */
  private boolean ended(String callId) {
    String r = records(callId);
    return !r.contains("running") && !r.contains("pending") && !r.contains("-1");
  }

  private String records(String callId) {
    StringBuilder s = new StringBuilder();
    for (Hub hub : List.of(a, b)) {
      Answer rec = ask(hub, "GET", "/api/v1/calls/" + callId, null, fleet.token());
      s.append(hub.name()).append(": ").append(rec.status()).append(' ').append(rec.body().getString("status"))
        .append("; ");
    }
    return s.toString();
  }

  /** How often n1 started {@code callId}'s tool (its log's line for every tier-3 run). */
  private int runs(String callId) {
    if (callId == null) {
      return 0;
    }
    try (var lines = Files.lines(nodeLog)) {
      return (int) lines.filter(l -> l.contains("privileged call started [call: " + callId + ",")).count();
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private Answer decide(Hub hub, String name, String decision) {
    return ask(hub, "/api/v1/approvals/" + approvals.get(name).approvalId() + "/" + decision,
      new JsonObject().put("reason", "partition drill").encode(), fleet.approverToken());
  }

  /** The approval's status as {@code hub} lists it ("missing" when it does not). */
  private String status(Hub hub, String approvalId) {
    JsonArray all = ask(hub, "GET", "/api/v1/approvals", null, fleet.token()).body()
      .getJsonArray("approvals", new JsonArray());
    return all.stream().map(JsonObject.class::cast).filter(j -> approvalId.equals(j.getString("approvalId")))
      .map(j -> j.getString("status")).findFirst().orElse("missing");
  }

  private String command(String name) {
    return new JsonObject().put("command", "echo " + name + "-" + tag).encode();
  }

  /** The call that ran for an answer: {@code data.sameAs} when the node answered another call's outcome. */
  private static String ranAs(Answer answer) {
    JsonObject data = answer.body().getJsonObject("data", new JsonObject());
    return data.getString("sameAs", answer.body().getString("callId"));
  }

  private static String message(Answer answer) {
    return answer.body().getJsonObject("error", new JsonObject()).getString("message", "");
  }

  private static String brief(Answer answer) {
    String m = message(answer);
    return answer.status() + (m.isEmpty() ? "" : " " + m.substring(0, Math.min(m.length(), 120)));
  }

  private static String summary(Map<String, Answer> answers) {
    Map<String, String> s = new TreeMap<>();
    answers.forEach((hub, r) -> s.put(hub, r.status() + " " + r.body().getString("callId", "") + " "
      + r.body().getString("approvalId", "") + " " + message(r)));
    return s.toString();
  }

  private static Answer ask(Hub hub, String path, String json, String bearer, String... headers) {
    return PartitionTest.ask(hub, "POST", path, json, ASK, bearer, headers);
  }

  private static Answer ask(Hub hub, String method, String path, String json, String bearer) {
    return PartitionTest.ask(hub, method, path, json, ASK, bearer);
  }
}
