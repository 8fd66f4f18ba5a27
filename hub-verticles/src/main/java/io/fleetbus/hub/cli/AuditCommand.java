package io.fleetbus.hub.cli;

import io.fleetbus.hub.cli.HubClient.Answer;
import io.vertx.core.json.JsonArray;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;
import java.util.concurrent.Callable;
import picocli.CommandLine.Command;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParentCommand;

/** The CLI's audit subcommands: the trail with its filters, and the check of its hash chain ({@code audit verify}). */
@Command(name = "audit", subcommands = AuditCommand.Verify.class, description = {
  "The audit trail, newest first (audit verify: check its hash chain).",
  "Viewers and operators see their own entries; approvers and admins see all."})
final class AuditCommand extends CliCommands.Base {
  /** What {@code --outcome} may name: an outcome, or the decision that ended the call. */
  static final List<String> OUTCOMES = List.of("ok", "error", "cancelled", "unknown", "denied", "expired", "refused",
    "approved", "auto", "admin");

  @Option(names = "--node", description = "only this node")
  String node;
  @Option(names = "--tool", description = "only this tool")
  String tool;
  @Option(names = "--principal", description = "only this person (others than yourself: approver or admin)")
  String principal;
  @Option(names = "--outcome", paramLabel = "OUTCOME",
    description = "ok, error, cancelled or unknown; or the decision: denied, expired, refused, approved, auto, admin")
  String outcome;
  @Option(names = "--since", paramLabel = "WHEN", description = {"how far back: a duration (30s, 15m, 2h, 7d, PT90M)",
    "or a time (2026-11-25 18:00, 2026-11-25, 2026-11-25T18:00:00Z, epoch ms)"})
  String since;
  @Option(names = "--limit", description = "at most this many entries (1-1000, default 100)")
  Integer limit;

  @Override
  public Integer call() {
    if (outcome != null && !OUTCOMES.contains(outcome)) {
      cli.err.println("fleetbus: --outcome " + outcome + " is none of " + String.join(", ", OUTCOMES));
      return 2;
    }
    Long from;
    try {
      from = since == null ? null : Since.parse(since, java.time.ZoneId.systemDefault(), System.currentTimeMillis());
    } catch (IllegalArgumentException e) {
      cli.err.println("fleetbus: --since " + e.getMessage());
      return 2;
    }
    Map<String, String> q = new LinkedHashMap<>();
    q.put("node", node);
    q.put("tool", tool);
    q.put("principal", principal);
    q.put("outcome", outcome);
    q.put("since", from == null ? null : from.toString());
    q.put("limit", limit == null ? null : limit.toString());
    return show(cli.client().get("/api/v1/audit", q), Views::audit);
  }

  @Command(name = "verify", description = {"Check the audit's hash chain on the hub (approver or admin).",
    "Every record must link to the one before and match its hash, and every call this hub finished must have its"
      + " record. Exit 0 when intact, 4 when broken (the first broken record is named)."})
  static final class Verify implements Callable<Integer> {
    @ParentCommand
    AuditCommand audit;

    @Override
    public Integer call() {
      FleetbusCli cli = audit.cli;
      Answer answer = cli.client().get("/api/v1/audit/verify", Map.of());
      int code = audit.show(answer, Views::verified);
      boolean intact = answer.body().getBoolean("ok", false)
        && answer.body().getJsonArray("unaudited", new JsonArray()).isEmpty();
      return code == 0 && !intact ? HubClient.VERIFY_FAILED : code;
    }
  }
}
