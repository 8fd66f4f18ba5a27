package io.fleetbus.hub.api;

import io.fleetbus.hub.approval.ApprovalBus;
import io.fleetbus.hub.approval.ApprovalService;
import io.fleetbus.hub.consent.ConfirmPolicy;
import io.fleetbus.hub.approval.Decision;
import io.fleetbus.hub.audit.AuditEntry;
import io.fleetbus.hub.authz.Caller;
import io.fleetbus.hub.calls.CallBus;
import io.fleetbus.hub.calls.CallRecord;
import io.fleetbus.hub.calls.CallService;
import io.fleetbus.hub.enrollment.NodeKeyring;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.catalog.Tiers;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.catalog.ToolSpec;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.UUID;
import java.util.function.BooleanSupplier;

/**
 * The one way into a tool call for every frontend (REST, WebSocket, MCP, event-bus bridges): role ≥ tool
 * tier and the tool's schema are checked here, then the call enters approval ({@link ApprovalService#submit}: a local
 * request to {@code fleet.hub.approve}). Approval decisions ({@link ApprovalService}), waits and cancels
 * ({@link CallService}) go the same typed way for everyone.
 */
public final class CallSubmitter {
  private static final org.slf4j.Logger LOG = org.slf4j.LoggerFactory.getLogger(CallSubmitter.class);

  /** run_script's alias that names its interpreter. */
  static final String POWERSHELL_ALIAS = "run_powershell";

  private final Vertx vertx;
  private final ToolCatalog catalog;
  private final long callTimeoutMs;
  private final NodeKeyring keyring;
  private final ConfirmPolicy confirm;
  private final ApprovalService approvals;
  private final CallService calls;

  public CallSubmitter(Vertx vertx, ToolCatalog catalog, long callTimeoutMs) {
    this(vertx, catalog, callTimeoutMs, new NodeKeyring());
  }

  /** @param keyring the nodes' keys (followed by the hub): opens the output chunks nodes seal for the hub */
  public CallSubmitter(Vertx vertx, ToolCatalog catalog, long callTimeoutMs, NodeKeyring keyring) {
    this(vertx, catalog, callTimeoutMs, keyring, ConfirmPolicy.SECOND_PERSON_ONLY);
  }

  /** @param confirm who confirms tier-3 calls (shown with the tools; the approval verticle applies it) */
  public CallSubmitter(Vertx vertx, ToolCatalog catalog, long callTimeoutMs, NodeKeyring keyring, ConfirmPolicy confirm) {
    this.confirm = confirm;
    this.vertx = vertx;
    this.catalog = catalog;
    this.callTimeoutMs = callTimeoutMs;
    this.keyring = keyring;
    this.approvals = ApprovalBus.client(vertx);
    this.calls = CallBus.client(vertx);
  }

  /** Listens to a call's output (register before submitting: see CallStream), opening what its node sealed. */
  public CallStream listen(String callId, java.util.function.Consumer<io.fleetbus.shared.msg.StreamChunk> onChunk) {
    return CallStream.listen(vertx, callId, keyring, onChunk);
  }

  /** Who confirms tier-3 calls, as the hub's conf says. */
  public ConfirmPolicy confirmPolicy() {
    return confirm;
  }

  /** A tool as GET /api/v1/tools lists it: tier-3 tools say who confirms them. */
  public JsonObject describe(ToolSpec spec) {
    JsonObject j = spec.toJson();
    if (spec.tier() >= 3) {
      j.put("confirm", confirm.forTool(spec.name())).put("confirmByLabel", confirm.labelRules());
    }
    return j;
  }

  public ToolCatalog catalog() {
    return catalog;
  }

  /**
   * Builds a call after checking the caller may use the tool and the arguments match its schema.
   * Throws a {@link io.fleetbus.shared.bus.FleetException} (404 tool, 400 arguments, 403 role).
   */
  public ToolCall prepare(Caller caller, String tool, JsonObject args, String nodeId, String idempotencyKey,
                          boolean stream) {
    return prepare(caller, tool, args, nodeId, null, idempotencyKey, stream);
  }

  /**
   * As above, for a node named by id, nodes picked by a {@code selector} (labels …), or — neither given —
   * a hub-side tool.
   */
  public ToolCall prepare(Caller caller, String tool, JsonObject args, String nodeId, JsonObject selector,
                          String idempotencyKey, boolean stream) {
    ToolSpec spec = catalog.require(tool);
    if (POWERSHELL_ALIAS.equals(tool) && args != null && !args.containsKey("interpreter")) {
      // the alias keeps its meaning: PowerShell, not bash (a node without pwsh says so)
      args = args.copy().put("interpreter", "pwsh");
    }
    boolean targeted = (nodeId != null && !nodeId.isBlank()) || selector != null;
    if (spec.runsOnHub() && targeted) {
      throw FailureCode.BAD_REQUEST.exception("tool " + spec.name() + " runs on the hub, not on a node: POST /api/v1/tools/"
        + spec.name());
    }
    if (!spec.runsOnHub() && !targeted) {
      throw FailureCode.BAD_REQUEST.exception("tool " + spec.name() + " runs on a node: name the node (or, over REST,"
        + " POST /api/v1/calls with labels)");
    }
    if (Tiers.maxToolTier(caller.roles()) < spec.tier()) {
      throw FailureCode.FORBIDDEN.exception("tool " + spec.name() + " is tier " + spec.tier() + ": it needs the role '"
        + Tiers.roleFor(spec.tier()) + "' or higher; your roles are " + caller.roles());
    }
    if (idempotencyKey != null && !idempotencyKey.matches("[\\x21-\\x7e]{1,255}")) {
      throw FailureCode.BAD_REQUEST.exception("Idempotency-Key must be 1-255 visible ASCII characters (no spaces), e.g. a UUID");
    }
    JsonObject checked = catalog.validate(spec, args);
    if (!stream && Boolean.TRUE.equals(checked.getValue("follow"))) {
      throw FailureCode.BAD_REQUEST.exception("field 'follow': following " + spec.name() + " streams its output until it"
        + " ends, which needs a streaming frontend: the WebSocket API (/api/v1/ws, \"stream\": true) or MCP; over"
        + " REST use job_wait and job_logs");
    }
    return new ToolCall(UUID.randomUUID().toString(), idempotencyKey, caller.subject(), caller.roles(), spec.name(),
      checked, targeted && nodeId != null && !nodeId.isBlank() ? nodeId : null, selector, timeoutFor(checked), stream, null);
  }

  /**
   * Records a call refused before it reached approval (unknown tool, bad arguments, missing role, bad target) in the
   * audit; completes once the record is committed, so whoever answers the caller answers after it. A failed audit
   * write is logged and does not change the refusal.
   */
  public Future<Void> refused(Caller caller, String tool, String nodeId, FleetException refusal) {
    if (caller == null) {
      return Future.succeededFuture();
    }
    int tier = tool == null ? 0 : catalog.find(tool).map(ToolSpec::tier).orElse(0);
    return AuditEntry.by(caller.subject()).on(nodeId, tool == null ? "(none)" : tool, tier)
      .refused(null, refusal.getMessage(), refusal.code().code).build().record(vertx)
      .recover(err -> {
        LOG.error("refusal not audited [tool: {}, code: {}, reason: {}]", tool, refusal.code().code, err.getMessage());
        return Future.succeededFuture();
      });
  }

  /** Hands a prepared call to approval; tier 3 answers at once with status {@code pending_approval}. */
  public Future<ToolResult> submit(ToolCall call) {
    return approvals.submit(call);
  }

  /** Withdraws a pending call or stops a running one on its node (the caller, an approver or an admin). */
  public Future<JsonObject> cancel(Caller caller, String callId) {
    return calls.cancel(callId, caller.subject(), caller.roles());
  }

  /** The call's record once it has finished, or as it is after {@code waitMs}. */
  public Future<JsonObject> awaitCall(String callId, long waitMs) {
    return calls.record(callId, waitMs).map(CallRecord::toJson);
  }

  /**
   * The call's record once it has finished, waiting in slices so no single bus request outlives its
   * timeout; stops early with the record as it is when {@code stillWanted} turns false.
   */
  public Future<JsonObject> awaitFinished(String callId, BooleanSupplier stillWanted) {
    return awaitCall(callId, 60_000).compose(rec -> rec.getValue("finishedAt") != null || !stillWanted.getAsBoolean()
      ? Future.succeededFuture(rec) : awaitFinished(callId, stillWanted));
  }

  /** Approves or denies a pending approval as {@code caller} (who needs the approver or admin role). */
  public Future<JsonObject> decide(Caller caller, String approvalId, boolean approve, String reason) {
    return approvals.decide(new Decision(approvalId, approve, caller.subject(), caller.roles(), reason, false));
  }

  /** The requester's own answer to an MCP elicitation (counts only where the hub's conf allows self-confirmation). */
  public Future<JsonObject> decideByElicitation(Caller caller, String approvalId, boolean approve, String reason) {
    return approvals.decide(new Decision(approvalId, approve, caller.subject(), caller.roles(), reason, true));
  }

  /** Approvals, optionally only those with {@code status}. */
  public Future<JsonArray> approvals(String status) {
    return approvals.list(status);
  }

  /** One approval (its summary shows the person what the call would do). */
  public Future<JsonObject> approval(String approvalId) {
    return approvals(null).map(list -> list.stream().map(JsonObject.class::cast)
      .filter(a -> approvalId.equals(a.getString("approvalId"))).findFirst()
      .orElseThrow(() -> FailureCode.NOT_FOUND.exception("no approval " + approvalId)));
  }

  private long timeoutFor(JsonObject args) {
    // the tool's own time (run_command's timeoutMs replaces timeout_seconds) ...
    Long toolMs = args.getValue("timeoutMs") instanceof Number ms ? Long.valueOf(ms.longValue())
      : args.getValue("timeout_seconds") instanceof Number s ? Long.valueOf(s.longValue() * 1000L) : null;
    // ... plus its SIGTERM→SIGKILL grace before the node can answer
    return toolMs == null ? callTimeoutMs : Math.max(callTimeoutMs, toolMs + 5000);
  }
}
