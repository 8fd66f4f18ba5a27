package io.fleetbus.hub.routing;

import io.vertx.core.Vertx;
import io.vertx.core.shareddata.LocalMap;

/**
 * How long an approved call may still be delivered: its approval's validity, set by the call's owner just before it
 * is routed and read where the call is signed for its node (issue 34), so the node's own check of the signature's
 * expiry refuses a delivery after it. Kept in the hub's Vert.x local map, keyed by call id (a fan-out's per-node
 * calls by their parent's); removed when the call is answered.
 */
public final class ApprovedUntil {
  private static final String MAP = "fleetbus.approved-until";

  private ApprovedUntil() {
  }

  private static LocalMap<String, Long> map(Vertx vertx) {
    return vertx.sharedData().getLocalMap(MAP);
  }

  public static void set(Vertx vertx, String callId, long untilMs) {
    map(vertx).put(callId, untilMs);
  }

  /** The approval's validity of call {@code callId} (or of the fan-out it belongs to); null for an unapproved call. */
  static Long of(Vertx vertx, String callId) {
    Long until = map(vertx).get(callId);
    int child = callId.lastIndexOf(':');
    return until != null || child < 0 ? until : map(vertx).get(callId.substring(0, child));
  }

  public static void done(Vertx vertx, String callId) {
    map(vertx).remove(callId);
  }
}
