package io.fleetbus.hub.authz;

import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.catalog.Tiers;
import io.fleetbus.shared.fault.FaultSwitch;
import io.fleetbus.shared.msg.ToolResult;
import io.fleetbus.shared.trust.SecretMasker;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.HashSet;
import java.util.Set;

/**
 * Who sees what — the one policy every frontend applies (REST, WebSocket, MCP, both bridges; the dashboard
 * and the CLI read through REST):
 * <ul>
 *   <li>a call, its result, its stream and its approval: its requester, approvers and admins;</li>
 *   <li>lists of calls and approvals: approvers and admins all, everyone else their own;</li>
 *   <li>the audit trail: approvers and admins all, everyone else their own entries; its chain check:
 *       approvers and admins;</li>
 *   <li>a job's state, output and events, and the job lists: as the call that launched it (the job's
 *       {@code principal}, approvers and admins);</li>
 *   <li>node events (online, offline, config, managed processes) and heartbeats: every signed-in user.</li>
 * </ul>
 * Every feed asks {@link #hears} per listener and event (WebSocket topics, the SockJS and TCP bridges, MCP's
 * get_site_logs, the dashboard through those), and every node answer passes {@link #nodeAnswer} before it is recorded
 * or shown.
 * Whatever is shown to anyone but the node passes the audit's {@link SecretMasker}: approval arguments and
 * summaries always, a call's result when the reader is not its requester.
 * <p>{@code -Dfleetbus.fault.noAuthz=true} switches the policy off (everyone sees everything, unmasked): only the
 * tests use it, to show the attacks they guard against succeed without it.
 */
public final class Access {

  /** Events about a person's work (an approval, a call, a job): only its owner, approvers and admins hear them. */
  private static final java.util.List<String> PERSONAL_EVENT_PREFIXES = java.util.List.of("approval.", "call.", "job.");
  /** The job tools whose answer shows a job (or jobs) to the caller. */
  private static final java.util.Set<String> JOB_READS = java.util.Set.of("job_status", "job_logs", "job_wait");

  private Access() {
  }

  private static boolean off() {
    return FaultSwitch.NO_AUTHZ.on();
  }

  /** Approvers and admins see every call, approval and audit entry. */
  public static boolean seesAll(Caller caller) {
    return off() || caller.roles().contains(Tiers.ADMIN) || caller.roles().contains(Tiers.APPROVER);
  }

  /** Whether {@code caller} may see an object requested by {@code owner}. */
  public static boolean mayRead(Caller caller, String owner) {
    return seesAll(caller) || caller.subject().equals(owner);
  }

  /** A call record as {@code caller} may see it; a 404 (the call's existence is not told) when they may not. */
  public static JsonObject callRecord(Caller caller, JsonObject record) {
    String owner = record.getString("principal");
    if (!mayRead(caller, owner)) {
      throw FailureCode.NOT_FOUND.exception("no call " + record.getString("callId") + " that you may see (a call is shown"
        + " to its requester, approvers and admins)");
    }
    if (off() || caller.subject().equals(owner)) {
      return record;
    }
    JsonObject view = record.copy();
    Set<String> found = new HashSet<>();
    for (String field : new String[] {"data", "error"}) {
      Object v = view.getValue(field);
      if (v instanceof JsonObject o) {
        view.put(field, SecretMasker.mask(o, found));
      } else if (v instanceof JsonArray a) {
        view.put(field, SecretMasker.mask(a, found));
      } else if (v instanceof String s) {
        view.put(field, SecretMasker.mask(s, found));
      }
    }
    return view;
  }

  /** An approval as anyone but the node sees it: arguments, summary and reason masked. */
  public static JsonObject approval(JsonObject approval) {
    if (off()) {
      return approval;
    }
    JsonObject view = approval.copy();
    Set<String> found = new HashSet<>();
    if (view.getValue("args") instanceof JsonObject args) {
      view.put("args", SecretMasker.mask(args, found));
    }
    for (String field : new String[] {"summary", "reason"}) {
      if (view.getValue(field) instanceof String s) {
        view.put(field, SecretMasker.scrub(SecretMasker.mask(s, found), found));
      }
    }
    return view;
  }

  /** The approvals {@code caller} may see (approvers and admins: all; others: their own), masked. */
  public static JsonArray approvals(Caller caller, JsonArray all) {
    JsonArray out = new JsonArray();
    for (Object o : all) {
      if (o instanceof JsonObject a && mayRead(caller, a.getString("requester"))) {
        out.add(approval(a));
      }
    }
    return out;
  }

  /** An audit query narrowed to what {@code caller} may read: others' entries only for approvers and admins. */
  public static JsonObject auditQuery(Caller caller, JsonObject query) {
    if (seesAll(caller)) {
      return query;
    }
    String asked = query.getString("principal");
    if (asked != null && !asked.equals(caller.subject())) {
      throw FailureCode.FORBIDDEN.exception("reading another user's audit entries needs the role 'approver' or 'admin'");
    }
    return query.copy().put("principal", caller.subject());
  }

  /** Whether an event about a person's work: an approval, a call or a job (the rest is about nodes and hubs). */
  public static boolean personal(JsonObject event) {
    String type = event.getString("type", "");
    return PERSONAL_EVENT_PREFIXES.stream().anyMatch(type::startsWith);
  }

  /**
   * Whether an event ({@code fleet.events}, as JSON) may reach {@code caller} (null: a listener not signed in):
   * approvals, calls and jobs only their owner's (its {@code requester} or {@code principal}), approvers' and
   * admins'; node and hub events everyone signed in.
   */
  public static boolean hears(Caller caller, JsonObject event) {
    if (!personal(event)) {
      return true;
    }
    if (caller == null) {
      return off();
    }
    String owner = event.getString("requester", event.getString("principal"));
    return mayRead(caller, owner);
  }

  /**
   * A node's answer as {@code caller} may see it: a job's state, output or wait (job_status, job_logs, job_wait) only
   * for the user who launched it, approvers and admins (others get the 404 an unknown job gets); job_list without
   * others' jobs. A fan-out's answer ({@code results}, one per node) likewise, node by node. Every other answer as it is.
   */
  public static ToolResult nodeAnswer(Caller caller, String tool, ToolResult result) {
    if (seesAll(caller) || !tool.startsWith("job_") || result == null || result.data() == null
      || !ToolResult.OK.equals(result.status())) {
      return result;
    }
    if (result.nodeId() == null && result.data().getValue("results") instanceof JsonArray perNode) {
      JsonArray shown = new JsonArray();
      perNode.forEach(o -> shown.add(o instanceof JsonObject e && ToolResult.OK.equals(e.getString("status"))
        && e.getValue("data") instanceof JsonObject d ? fanOutEntry(caller, tool, e, d) : o));
      return result.withData(result.data().copy().put("results", shown));
    }
    return result.withData(jobView(caller, tool, result.data(), result.nodeId()));
  }

  private static JsonObject fanOutEntry(Caller caller, String tool, JsonObject entry, JsonObject data) {
    try {
      return entry.copy().put("data", jobView(caller, tool, data, entry.getString("nodeId")));
    } catch (io.fleetbus.shared.bus.FleetException e) {
      JsonObject refused = entry.copy().put("status", ToolResult.ERROR).put("error", new JsonObject()
        .put("code", e.code().code).put("message", e.getMessage()));
      refused.remove("data");
      return refused;
    }
  }

  /** One node's job answer without what {@code caller} may not see (a 404 for another user's job). */
  private static JsonObject jobView(Caller caller, String tool, JsonObject data, String nodeId) {
    if ("job_list".equals(tool) && data.getValue("jobs") instanceof JsonArray jobs) {
      JsonArray own = new JsonArray();
      jobs.forEach(j -> {
        if (j instanceof JsonObject job && mayRead(caller, job.getString("principal"))) {
          own.add(job);
        }
      });
      return own.size() == jobs.size() ? data : data.copy().put("jobs", own).put("count", own.size())
        .put("total", own.size());
    }
    if (JOB_READS.contains(tool)) {
      JsonObject job = data.getValue("job") instanceof JsonObject j ? j : data;
      if (!mayRead(caller, job.getString("principal"))) {
        throw FailureCode.NOT_FOUND.exception("no job '" + data.getString("jobId") + "' that you may see on node "
          + nodeId + " (a job's state and output are shown to the user who launched it, approvers and admins)");
      }
    }
    return data;
  }
}
