package io.fleetbus.hub.audit;

import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.Vertx;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The worker side of the audit verticle (issue 34, fail closed): writes each batch and, when one cannot be written,
 * closes the {@link AuditGate} with the cause and keeps the batch's entries in memory; the disk check every
 * {@code probeMs} closes the gate before a write fails (too little space, a read-only mount) and opens it again once
 * the disk has room: the kept entries are written first, so {@code audit/verify} accounts for every call without a
 * restart. Runs in the verticle's ordered blocking tasks only (one at a time, in order), never on the event loop.
 */
final class AuditWriter {
  private static final Logger LOG = LoggerFactory.getLogger(AuditWriter.class);
  /** Entries kept while the audit is unavailable (refusals mostly: no call runs meanwhile); beyond, counted only. */
  private static final int MAX_KEPT = 100_000;

  private final Vertx vertx;
  private final AuditLog log;
  private final AuditDisk disk;
  private final List<AuditEntry> kept = new ArrayList<>();
  private long lost;
  private String closedBecause;
  private long closedAt;

  AuditWriter(Vertx vertx, AuditLog log, AuditDisk disk) {
    this.vertx = vertx;
    this.log = log;
    this.disk = disk;
  }

  /** At start: the reserve put in place, or the gate closed if the disk already has no room for it. */
  void open() {
    try {
      disk.keepReserve();
      check();
    } catch (java.io.IOException e) {
      close(disk.cause(e));
    }
  }

  /** Writes one batch; when it cannot, keeps it, closes the gate and fails (the waiters hear the cause). */
  void write(List<AuditEntry> batch) throws Exception {
    try {
      log.append(batch);
    } catch (java.sql.SQLException first) {
      // the disk filled: the reserve makes room for the ends of calls that were already running (given back only now,
      // when an entry needs it: whatever filled the disk would take it as well)
      if (releaseReserve()) {
        try {
          log.append(batch);
          close(disk.cause(first));
          return;
        } catch (java.sql.SQLException again) {
          first.addSuppressed(again);
        }
      }
      String cause = disk.cause(first);
      close(cause);
      keep(batch);
      throw FailureCode.NO_ELIGIBLE_NODE.exception("audit unavailable: " + cause + " (" + first.getMessage()
        + "); the entry is kept and written once the audit can be written again");
    }
  }

  /** The periodic disk check: closes the gate on a problem, opens it (kept entries written first) once all is well. */
  void check() {
    boolean closed = closedBecause != null;
    String problem = disk.problem(closed);
    if (problem != null) {
      if (!closed) {
        close(problem);
      } else {
        closedBecause = problem; // its figures change (KiB free): /ready and refusals say what holds now
        AuditGate.unavailable(vertx, problem);
      }
      return;
    }
    if (closed) {
      reopen();
    }
  }

  private void reopen() {
    int late = kept.size();
    try {
      disk.keepReserve();
      log.append(kept);
    } catch (Exception e) {
      closedBecause = disk.cause(e);
      AuditGate.unavailable(vertx, closedBecause);
      return;
    }
    kept.clear();
    LOG.warn("audit available again [unavailableMs: {}, writtenLate: {}, lost: {}]", System.currentTimeMillis() - closedAt,
      late, lost);
    closedBecause = null;
    AuditGate.available(vertx);
  }

  private void close(String cause) {
    if (closedBecause == null) {
      closedAt = System.currentTimeMillis();
      LOG.error("audit unavailable: calls are refused until it can be written again [cause: {}]", cause);
    }
    closedBecause = cause;
    AuditGate.unavailable(vertx, cause);
  }

  private void keep(List<AuditEntry> batch) {
    int room = Math.max(0, MAX_KEPT - kept.size());
    kept.addAll(batch.subList(0, Math.min(room, batch.size())));
    if (batch.size() > room) {
      lost += batch.size() - room;
      LOG.error("audit entries lost: more than {} waited for the audit [lost so far: {}]", MAX_KEPT, lost);
    }
  }

  private boolean releaseReserve() {
    try {
      return disk.releaseReserve();
    } catch (java.io.IOException e) {
      return false;
    }
  }
}
