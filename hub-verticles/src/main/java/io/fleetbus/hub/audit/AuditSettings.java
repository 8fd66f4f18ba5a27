package io.fleetbus.hub.audit;

import io.fleetbus.shared.fault.FaultSwitch;
import io.vertx.core.json.JsonObject;

/**
 * How the audit writer groups its commits (conf {@code audit}): a batch is committed (one transaction, one
 * fsync) {@code batchMs} after its first record or as soon as it holds {@code batchMax}, whichever comes first;
 * records that arrive while a batch is being written form the next one, written as soon as it is done. The default
 * {@code batchMs} 0 starts a batch at once when the writer is idle: under load the batches form by themselves
 * (everything that arrived during one commit), and a lone call does not wait for a window (the bench: a 2 ms
 * window doubled the p50 of one call in flight and gained no throughput).
 *
 * @param answerAfterCommit true (default): whoever records a call hears back only once the record is committed,
 *                          so a call is answered only once its audit record is on disk. false: nobody waits
 *                          for the write (the entry is sent and committed later), as before issue 21 (kept for the bench's
 *                          same-run comparison; a hub killed then loses the audit of calls it already answered)
 * @param probeMs           how often the disk under the data folder is checked (issue 34: the hub runs no call while
 *                          the audit cannot be written, and resumes by itself)
 * @param minFreeBytes      below this much free space there the audit counts as unavailable ({@code minFreeMb})
 * @param reserveBytes      a file of this size kept there and given back when the disk fills, so entries of calls that
 *                          were already running still fit ({@code reserveMb}; 0: none)
 */
public record AuditSettings(long batchMs, int batchMax, boolean answerAfterCommit, long probeMs, long minFreeBytes,
                            long reserveBytes) {
  private static final long MIB = 1024 * 1024;
  public static final AuditSettings DEFAULT = new AuditSettings(0, 512, true);

  public AuditSettings(long batchMs, int batchMax, boolean answerAfterCommit) {
    this(batchMs, batchMax, answerAfterCommit, 500, 16 * MIB, 4 * MIB);
  }

  public static AuditSettings fromConf(JsonObject conf) {
    JsonObject audit = conf.getJsonObject("audit", new JsonObject());
    String env = System.getenv("FLEETBUS_AUDIT_ANSWER_AFTER_COMMIT");
    boolean after = env != null && !env.isBlank() ? Boolean.parseBoolean(env)
      : audit.getBoolean("answerAfterCommit", DEFAULT.answerAfterCommit());
    // fault switch for tests (-Dfleetbus.fault.answerBeforeAudit=true): the behaviour before issue 21
    after &= !FaultSwitch.ANSWER_BEFORE_AUDIT.on();
    AuditSettings s = new AuditSettings(audit.getLong("batchMs", DEFAULT.batchMs()),
      audit.getInteger("batchMax", DEFAULT.batchMax()), after, audit.getLong("probeMs", DEFAULT.probeMs()),
      audit.getLong("minFreeMb", DEFAULT.minFreeBytes() / MIB) * MIB, audit.getLong("reserveMb", DEFAULT.reserveBytes() / MIB) * MIB);
    if (s.batchMs < 0 || s.batchMs > 1000 || s.batchMax < 1 || s.batchMax > 100_000) {
      throw new IllegalArgumentException("audit.batchMs must be 0-1000 and audit.batchMax 1-100000");
    }
    if (s.probeMs < 50 || s.probeMs > 60_000 || s.minFreeBytes < 0 || s.reserveBytes < 0 || s.reserveBytes > 1024 * MIB) {
      throw new IllegalArgumentException("audit.probeMs must be 50-60000, audit.minFreeMb 0 or more and audit.reserveMb"
        + " 0-1024");
    }
    return s;
  }
}
