package io.fleetbus.hub.approval;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.hub.audit.AuditVerticle;
import io.fleetbus.hub.boot.HubAssembly;
import io.fleetbus.hub.calls.CallBus;
import io.fleetbus.hub.calls.CallRecord;
import io.fleetbus.hub.calls.CallService;
import io.fleetbus.hub.consent.Approval;
import io.fleetbus.hub.registry.RegistryBus;
import io.fleetbus.hub.registry.RegistryStandIn;
import io.fleetbus.hub.routing.RoutePlan;
import io.fleetbus.hub.routing.RoutingBus;
import io.fleetbus.hub.routing.RoutingService;
import io.fleetbus.node.trust.CallAdmission;
import io.fleetbus.node.trust.CallJournal;
import io.fleetbus.node.trust.NodeTrust;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.fault.FaultSwitch;
import io.fleetbus.shared.fault.FaultSwitches;
import io.fleetbus.shared.msg.Codecs;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.fleetbus.shared.trust.DirectiveClaims;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.UUID;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.atomic.AtomicInteger;
import org.junit.jupiter.api.AfterEach;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.io.TempDir;

/**
 * Issue 34, items 2 and 4, in one JVM: two hubs' approval steps (the real verticle, audit and call ledger, each on its
 * own Vert.x with nothing shared — the two halves of a split) and one node's real journal ({@link CallAdmission},
 * fsync on a temp folder) behind a stand-in for routing that each half reaches or not ({@code cut}). Both halves know
 * one pending approval from before the split. The node's journal arbitrates: exactly one decision is told success,
 * the other gets 409 (naming the decision the node journaled) or 503 (this hub cannot reach the node: nothing
 * stored); after the heal both halves show that one decision; a key used through both halves runs once and both
 * answer that call. With {@code hubDecidesAlone} (or {@code unjournaledKeys}) on, the same steps tell two users
 * opposite decisions (or run the key's call twice): what the drill saw.
 */
@Timeout(60)
class SplitDecisionsTest {
  private static final ToolCatalog CATALOG = ToolCatalog.load();
  private static final List<String> APPROVER = List.of("approver");

  @TempDir
  Path dir;
  private CallAdmission node;
  /** How often the node ran each call's tool. */
  private final Map<String, AtomicInteger> runs = new ConcurrentHashMap<>();
  /** Completed when a call first runs on the node (a decision told without the node may come before the run). */
  private final Map<String, java.util.concurrent.CompletableFuture<Void>> ran = new ConcurrentHashMap<>();
  private Half a;
  private Half b;

  /** One half of the split: a hub's approval step on a Vert.x of its own. */
  private final class Half {
    final String name;
    final Vertx vertx = Vertx.vertx();
    final Map<String, Approval> saved = new LinkedHashMap<>();
    /** Cut off from the node: it is offline here, nothing reaches it. */
    volatile boolean cut;
    /** The node is lost after a decision: listed online a moment longer, but nothing reaches it. */
    volatile boolean lost;
    /** Calls whose node stays lost (as if only they were for a node that never came back). */
    final java.util.Set<String> lostFor = ConcurrentHashMap.newKeySet();
    ApprovalService approvals;
    CallService calls;

    Half(String name) {
      this.name = name;
    }

    void start(List<Approval> before) throws Exception {
      before.forEach(ap -> saved.put(ap.approvalId(), ap));
      Codecs.register(vertx);
      HubAssembly.codecs(vertx);
      approvals = ApprovalBus.client(vertx);
      calls = CallBus.client(vertx);
      await(RoutingBus.serve(vertx, new NodeStandIn(this))
        .compose(v -> RegistryBus.serve(vertx, new RegistryStandIn(() -> !cut && !lost)))
        .compose(v -> vertx.deployVerticle(new AuditVerticle(dir.resolve(name + "-audit.db"))))
        .compose(v -> vertx.deployVerticle(new ApprovalVerticle(CATALOG, 60_000, new ApprovalStore() {
          @Override
          public Future<Void> save(Approval ap) {
            saved.put(ap.approvalId(), ap);
            return Future.succeededFuture();
          }

          @Override
          public Future<List<Approval>> load(int recentDecided) {
            return Future.succeededFuture(new ArrayList<>(saved.values()));
          }
        }, new ApprovalSummaries(vertx, CATALOG), false))));
    }

    /** The decision's answer: 200 (null) or its failure code, and the message. */
    Answer decide(String approvalId, String who, boolean approve) throws Exception {
      long t0 = System.nanoTime();
      Future<JsonObject> decided = approvals.decide(new Decision(approvalId, approve, who, APPROVER, "checked", false));
      Answer answer = await(decided.transform(ar -> Future.succeededFuture(ar.succeeded()
        ? new Answer(200, ar.result().encode(), 0) : new Answer(FailureCode.of(ar.cause()).code, ar.cause().getMessage(),
        0))));
      return new Answer(answer.code(), answer.text(), (System.nanoTime() - t0) / 1000);
    }

    String status(String approvalId) throws Exception {
      return await(approvals.list(null)).stream().map(JsonObject.class::cast)
        .filter(j -> approvalId.equals(j.getString("approvalId"))).findFirst().orElseThrow().getString("status");
    }
  }

  private record Answer(int code, String text, long micros) {
  }

  /** Routing as one half sees it: the node's real journal behind it, reachable unless the half is cut off. */
  private final class NodeStandIn implements RoutingService {
    private final Half half;

    NodeStandIn(Half half) {
      this.half = half;
    }

    private <T> Future<T> atNode(String callId, java.util.concurrent.Callable<T> work) {
      return half.cut || half.lost || half.lostFor.contains(callId) ? Future.failedFuture(FailureCode.NO_ELIGIBLE_NODE.exception("node n1 left the cluster"))
        : half.vertx.executeBlocking(work, false);
    }

    @Override
    public Future<ToolResult> route(ToolCall call) {
      return atNode(call.callId(), () -> {
        int tier = CATALOG.find(call.tool()).orElseThrow().tier();
        CallAdmission.Checked checked = new CallAdmission.Checked(DirectiveClaims.forCall(call, tier,
          System.currentTimeMillis(), 60_000), tier);
        CallAdmission.Admission admitted = node.admit(call, checked);
        if (admitted.earlier() != null) {
          return admitted.earlier();
        }
        runs.computeIfAbsent(call.callId(), k -> new AtomicInteger()).incrementAndGet();
        ranFuture(call.callId()).complete(null);
        ToolResult ok = ToolResult.ok(call.callId(), "n1", new JsonObject().put("ranAs", call.callId()), 1);
        node.finish(call, admitted, ok);
        return ok;
      });
    }

    @Override
    public Future<RoutePlan> plan(ToolCall call) {
      return Future.succeededFuture(RoutePlan.runs(call, new JsonObject()));
    }

    @Override
    public Future<Void> reachable(String nodeId) {
      return half.cut ? Future.failedFuture(FailureCode.NO_ELIGIBLE_NODE.exception("cannot confirm the decision with"
        + " node " + nodeId + " from this hub (it is offline as this hub sees it); the approval stays pending; retry"
        + " later or on another hub")) : Future.succeededFuture();
    }

    @Override
    public Future<JsonObject> refuseCall(String nodeId, String callId, JsonObject decision) {
      return atNode(callId, () -> {
        JsonObject held = node.refuse(callId, decision.copy().put("hub", half.name));
        JsonObject answer = new JsonObject().put("callId", callId).put("nodeId", nodeId).put("refused", held == null);
        return held == null ? answer : answer.put("journal", held);
      });
    }

    @Override
    public Future<JsonObject> callJournaled(String nodeId, String callId, long waitMs) {
      // as the node does (it waits for the call it was just sent to be journaled): asked again until it is
      return callStatus(nodeId, callId, 0).compose(known -> !"not_received".equals(known.getString("state"))
        || waitMs <= 0 ? Future.succeededFuture(known) : Future.<Void>future(p -> half.vertx.setTimer(5, t -> p.complete()))
        .compose(v -> callJournaled(nodeId, callId, waitMs - 5)));
    }

    @Override
    public Future<JsonObject> callStatus(String nodeId, String callId, long waitMs) {
      return atNode(callId, () -> {
        JsonObject known = node.status(callId);
        return known != null ? known : new JsonObject().put("callId", callId).put("state", "not_received");
      });
    }
  }

  @BeforeEach
  void twoHalvesOneNode() throws Exception {
    NodeTrust trust = NodeTrust.load("n1", dir.resolve("node"), "unused-token", CATALOG);
    node = new CallAdmission(trust, CallJournal.open(dir.resolve("node-journal")), CATALOG);
  }

  @AfterEach
  void close() throws Exception {
    for (Half h : new Half[] {a, b}) {
      if (h != null) {
        await(h.vertx.close());
      }
    }
    node.closeJournal();
  }

  /** Two pending approvals both halves knew before the split (their calls: run_command on n1, tier 3). */
  private List<Approval> pendingBeforeTheSplit() throws Exception {
    return pendingBeforeTheSplit(60_000, 60_000);
  }

  /** As above, one approval for each validity in {@code validMs}. */
  private List<Approval> pendingBeforeTheSplit(long... validMs) throws Exception {
    List<Approval> pending = new ArrayList<>();
    for (int i = 0; i < validMs.length; i++) {
      ToolCall call = new ToolCall(UUID.randomUUID().toString(), null, "alice", List.of("admin"), "run_command",
        new JsonObject().put("command", "systemctl restart app" + i), "n1", null, 5000, false, null);
      long now = System.currentTimeMillis();
      pending.add(new Approval("ap-" + UUID.randomUUID(), call, "restart app", now, now + validMs[i],
        Approval.PENDING, null, null, 0, null));
    }
    a = new Half("hub-a");
    b = new Half("hub-b");
    a.start(pending);
    b.start(pending);
    return pending;
  }

  @Test
  void theMinorityCannotDecideAndAfterTheHealBothShowTheDecisionTheNodeJournaled() throws Exception {
    Approval ap = pendingBeforeTheSplit().get(0);
    a.cut = true;
    Answer onA = a.decide(ap.approvalId(), "bob", true);
    assertEquals(503, onA.code(), onA.text());
    assertTrue(onA.text().contains("cannot confirm the decision with node n1 from this hub") && onA.text()
      .contains("the approval stays pending"), onA.text());
    assertEquals(Approval.PENDING, a.status(ap.approvalId()), "nothing stored on the side that could not reach n1");
    assertEquals(Approval.PENDING, a.saved.get(ap.approvalId()).status(), "nor on its disk");
    Answer onB = b.decide(ap.approvalId(), "carol", false);
    assertEquals(200, onB.code(), onB.text());
    assertEquals("refused", node.status(ap.call().callId()).getString("state"));

    a.cut = false; // the heal: A (its map still says pending) is asked again
    Answer again = a.decide(ap.approvalId(), "bob", true);
    assertEquals(409, again.code(), again.text());
    assertTrue(again.text().contains("denied by carol on hub hub-b"), again.text());
    assertEquals(Approval.DENIED, a.status(ap.approvalId()), "A shows the decision n1 journaled");
    assertEquals(Approval.DENIED, b.status(ap.approvalId()));
    assertEquals(null, runs.get(ap.call().callId()), "the denied call never ran");
    CallRecord onARecord = await(a.calls.record(ap.call().callId(), 5000));
    assertEquals(403, onARecord.result().errorCode(), "A's record: denied, as n1's journal says");
    System.out.printf("timing: deny (node round trip + fsync) %d µs, approve refused by the journal %d µs%n",
      onB.micros(), again.micros());
  }

  @Test
  void approveOnOneSideAndDenyOnTheOtherTellOnlyOneOfThemSuccess() throws Exception {
    List<Approval> both = pendingBeforeTheSplit();
    Approval ap = both.get(0);
    Answer approved = a.decide(ap.approvalId(), "bob", true);
    assertEquals(200, approved.code(), approved.text());
    assertTrue(approved.text().contains("journaled on node n1"), approved.text());
    Answer denied = b.decide(ap.approvalId(), "carol", false);
    assertEquals(409, denied.code(), denied.text());
    assertTrue(denied.text().contains("already approved elsewhere: node n1 received call " + ap.call().callId()
      + " first"), denied.text());
    assertEquals(Approval.PENDING, b.status(ap.approvalId()), "B stored nothing; the merge brings A's approval");
    assertEquals(ToolResult.OK, await(a.calls.record(ap.call().callId(), 5000)).status());
    assertEquals(1, runs.get(ap.call().callId()).get());
    System.out.printf("timing: approve (told once journaled) %d µs, deny refused by the journal %d µs%n",
      approved.micros(), denied.micros());

    // the other order: the deny reaches n1 first, so the approval from the other side is refused and says so
    Approval second = both.get(1);
    assertEquals(200, b.decide(second.approvalId(), "carol", false).code());
    Answer late = a.decide(second.approvalId(), "bob", true);
    assertEquals(409, late.code(), late.text());
    assertEquals(Approval.DENIED, a.status(second.approvalId()));
    assertEquals(null, runs.get(second.call().callId()));
  }

  /** Item 3: the node is lost right after the approval; carried out once it is back, or ended at the expiry. */
  @Test
  void anApprovedCallNotDeliveredIsCarriedOutOnceTheNodeIsBackOrEndsAtItsExpiry() throws Exception {
    List<Approval> both = pendingBeforeTheSplit(60_000, 2500);
    Approval back = both.get(0);
    Approval never = both.get(1);
    a.lost = true;
    Answer approved = a.decide(back.approvalId(), "bob", true);
    assertEquals(200, approved.code(), approved.text());
    assertTrue(approved.text().contains("not confirmed by node n1 yet"), approved.text());
    assertEquals(200, a.decide(never.approvalId(), "bob", true).code());
    assertEquals(CallRecord.RUNNING, await(a.calls.record(back.call().callId(), 0)).status(), "not ended: followed");
    a.lost = false; // back only for the first: the second's node stays lost past its approval's validity
    a.lostFor.add(never.call().callId());
    long t0 = System.nanoTime();
    CallRecord ran = await(a.calls.record(back.call().callId(), 15_000));
    assertEquals(ToolResult.OK, ran.status(), ran.toJson().encode());
    assertEquals(1, runs.get(back.call().callId()).get(), "carried out once when the node was back");
    System.out.printf("timing: an undelivered approved call ran %d ms after its node was back%n",
      (System.nanoTime() - t0) / 1_000_000);
    CallRecord ended = await(a.calls.record(never.call().callId(), 15_000));
    assertTrue(ended.isFinished() && ended.result().errorMessage().contains("approved, but node n1 was unreachable"
      + " until the approval expired"), ended.toJson().encode());
    assertEquals(null, runs.get(never.call().callId()));
  }

  /**
   * An expiry is a decision too: the half cut off from the node does not expire an approval the other half approved
   * (and n1 ran) — it stays pending there, and can no longer be approved; deciding alone, it shows "expired" for a call
   * that ran.
   */
  @Test
  void theHalfThatCannotReachTheNodeDoesNotExpireWhatTheOtherHalfApproved() throws Exception {
    assertEquals(Approval.PENDING, expiryOnTheCutSide(), "not expired while n1 cannot be reached");
    try (FaultSwitches.Restore off = FaultSwitches.overrideInTest(FaultSwitches.of(FaultSwitch.HUB_DECIDES_ALONE))) {
      assertEquals(Approval.EXPIRED, expiryOnTheCutSide(), "deciding alone: expired on A, ran through B");
    }
  }

  /** B approves an approval valid 1.5 s while A is cut off from n1; A's status once it is past its expiry. */
  private String expiryOnTheCutSide() throws Exception {
    if (a != null) {
      await(a.vertx.close());
      await(b.vertx.close());
    }
    Approval ap = pendingBeforeTheSplit(1500).get(0);
    a.cut = true;
    assertEquals(200, b.decide(ap.approvalId(), "bob", true).code());
    CallRecord onB = await(b.calls.record(ap.call().callId(), 5000));
    assertEquals(ToolResult.OK, onB.status());
    assertEquals(1, runs.get(ap.call().callId()).get());
    long wait = ap.expiresAt() + 700 - System.currentTimeMillis();
    await(Future.<Void>future(p -> a.vertx.setTimer(Math.max(1, wait), t -> p.complete())));
    String status = a.status(ap.approvalId());
    if (Approval.PENDING.equals(status)) {
      Answer late = a.decide(ap.approvalId(), "carol", true);
      assertEquals(FailureCode.APPROVAL_EXPIRED.code, late.code(), "past its expiry nobody approves it: " + late.text());
    }
    return status;
  }

  /**
   * What a decision costs once warm, against the same steps with hubs deciding alone (as before): a deny now also waits
   * for one node round trip and fsync; an approve's answer for the node's journal of the delivered call.
   */
  @Test
  void decisionTimings() throws Exception {
    long[] valid = new long[80];
    java.util.Arrays.fill(valid, 60_000);
    List<Approval> many = pendingBeforeTheSplit(valid);
    String now = timings(many.subList(0, 40));
    try (FaultSwitches.Restore off = FaultSwitches.overrideInTest(FaultSwitches.of(FaultSwitch.HUB_DECIDES_ALONE))) {
      System.out.printf("timing (warm, median of the last 10): %s; deciding alone: %s%n", now,
        timings(many.subList(40, 80)));
    }
  }

  private String timings(List<Approval> many) throws Exception {
    List<Long> approve = new ArrayList<>();
    List<Long> deny = new ArrayList<>();
    for (int i = 0; i < many.size(); i++) {
      Answer answer = (i % 2 == 0 ? a : b).decide(many.get(i).approvalId(), "bob", i % 2 == 0);
      assertEquals(200, answer.code(), answer.text());
      (i % 2 == 0 ? approve : deny).add(answer.micros());
    }
    return "approve " + median(approve) + " µs, deny " + median(deny) + " µs";
  }

  private java.util.concurrent.CompletableFuture<Void> ranFuture(String callId) {
    return ran.computeIfAbsent(callId, k -> new java.util.concurrent.CompletableFuture<>());
  }

  private static long median(List<Long> micros) {
    List<Long> last = new ArrayList<>(micros.subList(micros.size() - 10, micros.size()));
    java.util.Collections.sort(last);
    return last.get(5);
  }

  @Test
  void withHubsDecidingAloneBothUsersAreToldOppositeDecisions() throws Exception {
    try (FaultSwitches.Restore off = FaultSwitches.overrideInTest(FaultSwitches.of(FaultSwitch.HUB_DECIDES_ALONE))) {
      Approval ap = pendingBeforeTheSplit().get(0);
      assertEquals(200, a.decide(ap.approvalId(), "bob", true).code(), "approved on A: told success");
      assertEquals(200, b.decide(ap.approvalId(), "carol", false).code(), "denied on B: told success too");
      // told without the node: the approve's answer may come before the delivery runs
      ranFuture(ap.call().callId()).get(10, java.util.concurrent.TimeUnit.SECONDS);
      assertEquals(1, runs.get(ap.call().callId()).get(), "and the call B's user was told was denied ran");
      assertEquals(Approval.APPROVED, a.status(ap.approvalId()));
      assertEquals(Approval.DENIED, b.status(ap.approvalId()));
    }
  }

  @Test
  void aKeyUsedThroughBothSidesRunsOnceAndBothAnswerThatCall() throws Exception {
    pendingBeforeTheSplit();
    assertEquals(1, keyedThroughBothSides("key-" + UUID.randomUUID()), "one run for the key");
    try (FaultSwitches.Restore off = FaultSwitches.overrideInTest(FaultSwitches.of(FaultSwitch.UNJOURNALED_KEYS))) {
      assertEquals(2, keyedThroughBothSides("key-" + UUID.randomUUID()), "keys unjournaled: the other side runs again");
    }
  }

  /** A keyed read through A, then the same key through B (its own key map knows nothing); how many runs. */
  private int keyedThroughBothSides(String key) throws Exception {
    ToolResult first = await(a.approvals.submit(read(key)));
    ToolResult second = await(b.approvals.submit(read(key)));
    int ran = runs.entrySet().stream().filter(e -> e.getKey().equals(first.callId()) || e.getKey()
      .equals(second.callId())).mapToInt(e -> e.getValue().get()).sum();
    if (ran == 1) {
      assertEquals(first.callId(), second.data().getString("sameAs"), "B's answer names the call that ran");
      assertEquals(first.callId(), second.data().getString("ranAs"), "with its outcome");
      CallRecord onB = await(b.calls.record(second.callId(), 5000));
      assertEquals(first.callId(), onB.result().data().getString("sameAs"), "B's record is that call's");
      ToolResult retryOnB = await(b.approvals.submit(read(key)));
      assertEquals(first.callId(), retryOnB.data().getString("ranAs"), "a keyed retry through B answers it too");
    }
    return ran;
  }

  private static ToolCall read(String key) {
    return new ToolCall(UUID.randomUUID().toString(), key, "alice", List.of("viewer"), "get_agent_health",
      new JsonObject(), "n1", null, 5000, false, null);
  }

  private static <T> T await(Future<T> f) throws Exception {
    return f.toCompletionStage().toCompletableFuture().get(20, TimeUnit.SECONDS);
  }
}
