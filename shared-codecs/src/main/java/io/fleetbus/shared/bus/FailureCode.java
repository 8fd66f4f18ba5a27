package io.fleetbus.shared.bus;

import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;

/** The failure codes of DESIGN.md. Each travels as a {@link ReplyException#failureCode()} and becomes the HTTP status. */
public enum FailureCode {
  BAD_REQUEST(400, "bad_request"),
  UNAUTHORIZED(401, "unauthorized"),
  FORBIDDEN(403, "forbidden"),
  NOT_FOUND(404, "not_found"),
  APPROVAL_EXPIRED(408, "approval_expired"),
  CONFLICT(409, "conflict"),
  TOO_LARGE(413, "too_large"),
  RATE_LIMITED(429, "rate_limited"),
  TOOL_FAILED(500, "tool_failed"),
  NO_ELIGIBLE_NODE(503, "unavailable"),
  TIMEOUT(504, "timeout");

  public final int code;
  public final String label;

  FailureCode(int code, String label) {
    this.code = code;
    this.label = label;
  }

  public FleetException exception(String message) {
    return new FleetException(this, message);
  }

  public static FailureCode of(int code) {
    for (FailureCode c : values()) {
      if (c.code == code) {
        return c;
      }
    }
    return TOOL_FAILED;
  }

  /**
   * The code a failure stands for: our own exceptions keep theirs, event-bus failures map the
   * Hono way (TIMEOUT → 504, NO_HANDLERS → 503, RECIPIENT_FAILURE → the recipient's code).
   */
  public static FailureCode of(Throwable failure) {
    if (failure instanceof FleetException fe) {
      return fe.code();
    }
    if (failure instanceof ReplyException re) {
      ReplyFailure type = re.failureType();
      if (type == ReplyFailure.TIMEOUT) {
        return TIMEOUT;
      }
      if (type == ReplyFailure.NO_HANDLERS) {
        return NO_ELIGIBLE_NODE;
      }
      return of(re.failureCode());
    }
    return TOOL_FAILED;
  }
}
