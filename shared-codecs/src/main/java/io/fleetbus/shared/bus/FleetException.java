package io.fleetbus.shared.bus;

/** A failure with a code from {@link FailureCode} and a message a person can act on. */
public final class FleetException extends RuntimeException {
  private final FailureCode code;

  public FleetException(FailureCode code, String message) {
    super(message, null, false, false);
    this.code = code;
  }

  public FailureCode code() {
    return code;
  }
}
