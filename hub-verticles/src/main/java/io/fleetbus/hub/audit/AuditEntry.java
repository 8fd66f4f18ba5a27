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
    return new AuditEntry(System.currentTimeMillis(), principal, nodeId, action, 0, details, null, null, "admin",
      principal, message, code == null ? "ok" : "error", code, 0);
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
