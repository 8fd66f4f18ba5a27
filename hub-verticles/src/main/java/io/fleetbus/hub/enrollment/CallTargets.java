package io.fleetbus.hub.enrollment;

import io.vertx.core.Vertx;
import io.vertx.core.shareddata.LocalMap;

/**
 * Which node this hub sent each call to, while its output may still come: a stream chunk counts only when the node it
 * was sent to proved it ({@link VerifiedFacts}), not whichever node its header names. Kept in the hub's Vert.x local
 * map (read from any thread): set just before a call is sent; removed when its answer arrives (a call without a
 * stream) or when the frontend's stream closes (a followed job streams until it ends).
 */
public final class CallTargets {
  private static final String MAP = "fleetbus.call-targets";

  private CallTargets() {
  }

  private static LocalMap<String, String> map(Vertx vertx) {
    return vertx.sharedData().getLocalMap(MAP);
  }

  public static void sent(Vertx vertx, String callId, String nodeId) {
    map(vertx).put(callId, nodeId);
  }

  /** The node call {@code callId} was sent to by this hub; null when it sent none (or the call's output ended). */
  public static String nodeOf(Vertx vertx, String callId) {
    return callId == null ? null : map(vertx).get(callId);
  }

  public static void done(Vertx vertx, String callId) {
    map(vertx).remove(callId);
  }
}
