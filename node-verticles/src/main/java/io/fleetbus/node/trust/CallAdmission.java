package io.fleetbus.node.trust;

import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.catalog.ToolSpec;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.fleetbus.shared.fault.FaultSwitch;
import io.fleetbus.shared.trust.DirectiveClaims;
import io.vertx.core.json.JsonObject;
import java.io.IOException;

/**
 * The gate in front of every tool: the call must carry the hub's signature for exactly this call on
 * this node, and a call of tier 2 or 3 (or with an Idempotency-Key) is written to the journal before it runs, so a second delivery
 * gets the first answer instead of a second run. Blocking (crypto, flushed file writes): workers only.
 */
public final class CallAdmission {
  /** How a refusal for another process of the node begins (the hub then delivers the call to the registered one). */
  public static final String SUPERSEDED = "superseded";

  /** 409 for a call the hub signed for another process of this node (the hub retries it with the current one). */
  static FleetException superseded(String callId, String nodeId) {
    return FailureCode.CONFLICT.exception(SUPERSEDED + ": call " + callId + " is for another process of node " + nodeId
      + " (the hub registered it after this one stopped answering)");
  }
  private final NodeTrust trust;
  private final CallJournal journal;
  private final ToolCatalog catalog;

  /**
   * {@code earlier}: answer with this result of an earlier delivery instead of running the tool; {@code waitFor}: the
   * call is its Idempotency-Key's second, and the key's first call ({@code waitFor}) still runs here — answer with its
   * outcome once it ends.
   */
  public record Admission(boolean journaled, ToolResult earlier, String waitFor) {
    public Admission(boolean journaled, ToolResult earlier) {
      this(journaled, earlier, null);
    }
  }

  public CallAdmission(NodeTrust trust, CallJournal journal, ToolCatalog catalog) {
    this.trust = trust;
    this.journal = journal;
    this.catalog = catalog;
  }

  public Admission admit(ToolCall call) throws IOException {
    return admit(call, (String) null);
  }

  /**
   * @param ownInstance this process's instance id: a call signed for another process of this node (the hub
   *                    registered a newer one) is refused with 409 {@code superseded}, so a process that hung
   *                    and came back never acts for the node again
   */
  public Admission admit(ToolCall call, String ownInstance) throws IOException {
    return admit(call, check(call, ownInstance));
  }

  /**
   * The signature part of admission, CPU only (no file, no lock): the hub's signature over exactly this call on
   * this process, and the call's tier. A call {@link Checked#needsJournal() needing no journal} (tier 0-1) is
   * admitted by this alone, on the event loop.
   */
  public Checked check(ToolCall call, String ownInstance) {
    DirectiveVerifier verifier = trust.verifier();
    if (verifier == null) {
      throw FailureCode.UNAUTHORIZED.exception("node " + trust.nodeId() + " is not enrolled yet and runs nothing");
    }
    DirectiveClaims claims = verifier.verifyCall(call, ownInstance, System.currentTimeMillis());
    if (ownInstance != null && claims.instanceId() != null && !ownInstance.equals(claims.instanceId())) {
      throw superseded(call.callId(), trust.nodeId());
    }
    int tier = Math.max(claims.tier(), catalog.find(call.tool()).map(ToolSpec::tier).orElse(3));
    return new Checked(claims, tier);
  }

  /** A call whose signature checked out, and its tier. */
  public record Checked(DirectiveClaims claims, int tier) {
    /**
     * Tier 2 and 3 calls are journaled before they run (once-only), and so is any call with an Idempotency-Key (issue
     * 34: a key answers its one call through either side of a split; an fsync only for keyed reads); other reads not.
     */
    public boolean needsJournal() {
      return tier >= 2 || claims.idempotencyKey() != null && !FaultSwitch.UNJOURNALED_KEYS.on();
    }
  }

  /** The journal part of admission for a checked call. Blocking (a flushed file write) for tier 2-3: workers only. */
  public Admission admit(ToolCall call, Checked checked) throws IOException {
    if (!checked.needsJournal()) {
      return new Admission(false, null);
    }
    CallJournal.Outcome first = journal.begin(call, checked.claims().digest());
    return switch (first.kind()) {
      case FRESH -> new Admission(true, null);
      case REFUSED -> throw refused(call.callId(), first.result());
      case DONE -> {
        if (first.result() == null) {
          throw FailureCode.CONFLICT.exception("call " + first.firstCallId() + " already ran on node " + trust.nodeId()
            + "; its result was too large to keep");
        }
        yield new Admission(false, sameAs(call, first.firstCallId(), ToolResult.fromJson(first.result())));
      }
      case RUNNING -> {
        if (!first.firstCallId().equals(call.callId())) {
          yield new Admission(false, null, first.firstCallId());
        }
        throw FailureCode.CONFLICT.exception("call " + first.firstCallId() + " is already running on node "
          + trust.nodeId() + "; it runs once — ask for its result later");
      }
      case OUTCOME_UNKNOWN -> throw FailureCode.CONFLICT.exception("call " + first.firstCallId() + " started on node "
        + trust.nodeId() + " before the node restarted; it is not run again and its outcome is unknown");
      case KEY_REUSED -> throw FailureCode.CONFLICT.exception("idempotency key already used by call " + first.firstCallId()
        + " for another tool or other arguments; use a new key");
    };
  }

  /**
   * The first call's outcome as the answer to {@code call}: under {@code call}'s own id (the hub accepts only an answer
   * for the call it sent), with {@code data.sameAs} naming the call that ran when that was another one (a retry with
   * its Idempotency-Key under a new call id: through the other hub, after a split).
   */
  static ToolResult sameAs(ToolCall call, String firstCallId, ToolResult first) {
    if (call.callId().equals(firstCallId)) {
      return first.withProof(null);
    }
    JsonObject data = first.data() == null ? new JsonObject() : first.data().copy();
    return new ToolResult(call.callId(), first.nodeId(), first.status(), data.put("sameAs", firstCallId),
      first.errorCode(), first.errorMessage(), first.durationMs());
  }

  /**
   * A call whose approval a hub denied, withdrew or expired first, as the journal holds it: it never runs. Its code is
   * the decision's (403 denied, 408 expired, 409 withdrawn), as the deciding hub records it.
   */
  static FleetException refused(String callId, JsonObject refusal) {
    JsonObject r = refusal == null ? new JsonObject() : refusal;
    return codeOf(r.getString("decision")).exception("call " + callId + " was " + r.getString("decision", "refused") + " by "
      + r.getString("by", "a hub") + " on hub " + r.getString("hub", "?") + " at "
      + java.time.Instant.ofEpochMilli(r.getLong("at", 0L)) + " (journaled on this node first); it never runs");
  }

  /** The failure code a call refused by {@code decision} ends with: the one its deciding hub records. */
  public static FailureCode codeOf(String decision) {
    return switch (String.valueOf(decision)) {
      case "denied" -> FailureCode.FORBIDDEN;
      case "expired" -> FailureCode.APPROVAL_EXPIRED;
      default -> FailureCode.CONFLICT;
    };
  }

  /**
   * Journals that {@code callId} never runs (a hub's deny or withdrawal). Null: the refusal is the journal's word now;
   * else what the journal held already. Blocking (a flushed write): workers only.
   */
  public JsonObject refuse(String callId, JsonObject decision) throws IOException {
    return journal.refuse(callId, decision);
  }

  /** Closes the journal's file (a speaker that answers no call: see NodeCredentials.answerNoCalls). */
  public void closeJournal() throws java.io.IOException {
    journal.close();
  }

  /** Records how a journaled call ended, so a later duplicate gets the same answer. */
  public void finish(ToolCall call, Admission admission, ToolResult result) throws IOException {
    if (admission.journaled()) {
      journal.finish(call.callId(), result);
    }
  }

  /** What the journal knows of a call (tier 2 and 3 only), or null. Blocking: workers only. */
  public io.vertx.core.json.JsonObject status(String callId) {
    return journal.status(callId);
  }
}
