package io.fleetbus.hub.audit;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;

/**
 * One thing that happened, as handed to the audit verticle (hub-local). A call's end is {@link #record recorded}:
 * its answer waits until the record is committed. Administrative acts are {@link #send sent} without waiting.
 * {@code args} are the raw arguments: the audit writer masks secrets before anything is stored.
 *
 * @param decision {@code auto} (tiers 1-2), {@code approved}, {@code denied}, {@code expired},
 *                 {@code cancelled}, {@code refused} (policy), or {@code admin} (enrollment, rekey, revoke)
 * @param outcome  {@code ok}, {@code cancelled} (stopped on its node or withdrawn before approval: not an error, no
 *                 code), {@code unknown} (the caller could not hear it) or {@code error} (then {@code code} says which)
 */
public record AuditEntry(long at, String principal, String nodeId, String tool, int tier, JsonObject args,
                         String callId, String approvalId, String decision, String decider, String reason,
                         String outcome, Integer code, long durationMs) {

  /** An administrative act on a node's trust (enrollment token, rekey, revoke). */
  public static AuditEntry admin(String principal, String action, String nodeId, JsonObject details, Integer code,
                                 String message) {
    return by(principal).on(nodeId, action, 0).args(details).decided("admin", principal, message)
      .ended(code == null ? "ok" : "error", code, 0).build();
  }

  /**
   * An entry of what {@code principal} asked, field by field: {@code AuditEntry.by("alice").on("n1", "read_file", 1)
   * .call(callId, null).decided("auto", null, null).ended("ok", null, 12).build()}. Unset: no args, call, decision or
   * code; taken now.
   */
  public static Builder by(String principal) {
    return new Builder(principal);
  }

  /** Fills an entry by name, so no caller lines up fourteen positions. */
  public static final class Builder {
    private final String principal;
    private long at = System.currentTimeMillis();
    private String nodeId;
    private String tool;
    private int tier;
    private JsonObject args;
    private String callId;
    private String approvalId;
    private String decision;
    private String decider;
    private String reason;
    private String outcome;
    private Integer code;
    private long durationMs;

    private Builder(String principal) {
      this.principal = principal;
    }

    /** When it happened (default: when the builder was made). */
    public Builder at(long epochMillis) {
      this.at = epochMillis;
      return this;
    }

    /** What was asked of which node (an admin act: the action as {@code tool}, tier 0). */
    public Builder on(String nodeId, String tool, int tier) {
      this.nodeId = nodeId;
      this.tool = tool;
      this.tier = tier;
      return this;
    }

    /** The raw arguments (the writer masks secrets). */
    public Builder args(JsonObject args) {
      this.args = args;
      return this;
    }

    public Builder call(String callId, String approvalId) {
      this.callId = callId;
      this.approvalId = approvalId;
      return this;
    }

    /** {@code decision} (see the record), by {@code decider}, with {@code reason}. */
    public Builder decided(String decision, String decider, String reason) {
      this.decision = decision;
      this.decider = decider;
      this.reason = reason;
      return this;
    }

    /** Refused by {@code by} ({@code policy}, {@code node <id>}, or null for the API's checks): an error, never ran. */
    public Builder refused(String by, String why, int failureCode) {
      return decided("refused", by, why).ended("error", failureCode, 0);
    }

    public Builder ended(String outcome, Integer code, long durationMs) {
      this.outcome = outcome;
      this.code = code;
      this.durationMs = durationMs;
      return this;
    }

    public AuditEntry build() {
      return new AuditEntry(at, principal, nodeId, tool, tier, args, callId, approvalId, decision, decider, reason,
        outcome, code, durationMs);
    }
  }

  public void send(Vertx vertx) {
    AuditBus.client(vertx).append(this);
  }

  /**
   * Succeeds once the entry is committed to the audit file (with the batch it joined); fails with 500 (tool_failed) when it
   * could not be written. Whoever answers a call answers after this.
   */
  public Future<Void> record(Vertx vertx) {
    if (Boolean.FALSE.equals(vertx.sharedData().getLocalMap(AuditVerticle.SETTINGS).get("answerAfterCommit"))) {
      // switched off (bench comparison, fault test): the behaviour before issue 21, nobody waits for the write
      send(vertx);
      return Future.succeededFuture();
    }
    return AuditBus.client(vertx).record(this);
  }

  @Override
  public String toString() {
    return "AuditEntry[tool=" + tool + ", node=" + nodeId + ", call=" + callId + ", outcome=" + outcome + "]";
  }
}
