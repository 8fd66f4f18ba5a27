package io.fleetbus.node.jobs;

import io.fleetbus.node.tools.CallControl;

/**
 * The launching call's stream, for as long as it lasts: a job outlives its call, so chunks keep
 * going to the call's stream address (dropped when nobody listens) until the job ends, unless the
 * event bus they went through is gone (the node rejoined a cluster).
 */
final class JobStream {
  static final JobStream NONE = new JobStream(null);

  private final CallControl control;
  private volatile boolean gone;

  JobStream(CallControl control) {
    this.control = control;
  }

  void emit(String stream, String data) {
    if (control == null || gone) {
      return;
    }
    try {
      control.emit(stream, data);
    } catch (RuntimeException e) {
      gone = true;
    }
  }

  /** The job ended: the last chunk carries its final state (status, exit code …) for a caller who follows it. */
  void end(io.vertx.core.json.JsonObject finalView) {
    if (control == null || gone) {
      return;
    }
    try {
      control.end(finalView.encode());
    } catch (RuntimeException e) {
      gone = true;
    }
  }
}
