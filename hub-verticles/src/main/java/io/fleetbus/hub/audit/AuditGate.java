package io.fleetbus.hub.audit;

import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.vertx.core.Vertx;
import io.vertx.core.shareddata.LocalMap;

/**
 * Whether this hub can write its audit now (issue 34: fail closed). The audit verticle says so here (a hub-local map,
 * read without a bus hop on every call); the approval step refuses new calls and decisions, the call ledger refuses to
 * dispatch, and {@code /ready} turns unready while it cannot: nothing runs on a node whose end could not be audited.
 */
public final class AuditGate {
  private static final String MAP = "fleetbus.audit.gate";
  private static final String CAUSE = "unavailable";

  private AuditGate() {
  }

  private static LocalMap<String, String> map(Vertx vertx) {
    return vertx.sharedData().getLocalMap(MAP);
  }

  /** Null while the audit can be written, else why not ("no space left on /var/lib/fleetbus (…)"). */
  public static String problem(Vertx vertx) {
    return map(vertx).get(CAUSE);
  }

  /**
   * Null while the audit can be written, else the 503 for {@code what} ("call run_script", "the decision on approval
   * …"): it names the cause, and that nothing was done.
   */
  public static FleetException refusal(Vertx vertx, String what) {
    String cause = problem(vertx);
    return cause == null ? null : FailureCode.NO_ELIGIBLE_NODE.exception("audit unavailable: " + cause + "; " + what
      + " was refused before anything ran (the hub runs nothing it cannot audit): try again once the audit is back"
      + " (GET /ready)");
  }

  static void unavailable(Vertx vertx, String cause) {
    map(vertx).put(CAUSE, cause);
  }

  static void available(Vertx vertx) {
    map(vertx).remove(CAUSE);
  }
}
