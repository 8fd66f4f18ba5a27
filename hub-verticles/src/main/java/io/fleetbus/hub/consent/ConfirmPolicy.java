package io.fleetbus.hub.consent;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;

/**
 * Who confirms a tier-3 call (hub conf {@code approvals}):
 * <ul>
 *   <li>{@code user}: the person who asked confirms it — in an MCP chat through elicitation, the seeds' "needs the
 *       user's confirmation" (the embedded default's choice);</li>
 *   <li>{@code second-person}: four eyes — an approver other than the requester decides (REST, dashboard, CLI).</li>
 * </ul>
 * {@code confirm} sets the default ({@code second-person} unless set; {@code allowElicitationSelfConfirm: true}, the older
 * switch, means {@code user}); {@code confirmByTool} ({@code {"write_file": "second-person"}}) overrides it per tool;
 * {@code confirmByLabel} ({@code [{"labels": {"env": "prod"}, "confirm": "second-person"}]}) overrides both for calls
 * to nodes carrying those labels (the first matching rule). Either way a person with the approver role may decide.
 */
public final class ConfirmPolicy {
  public static final String USER = "user";
  public static final String SECOND_PERSON = "second-person";

  private final String fallback;
  private final Map<String, String> byTool;
  private final List<LabelRule> byLabel;

  record LabelRule(JsonObject labels, String confirm) {
    boolean matches(JsonObject nodeLabels) {
      return labels.fieldNames().stream().allMatch(k -> labels.getValue(k) != null
        && labels.getValue(k).equals(nodeLabels.getValue(k)));
    }
  }

  private ConfirmPolicy(String fallback, Map<String, String> byTool, List<LabelRule> byLabel) {
    this.fallback = fallback;
    this.byTool = Map.copyOf(byTool);
    this.byLabel = List.copyOf(byLabel);
  }

  /** Four eyes everywhere (tests, and a hub whose conf says nothing). */
  public static final ConfirmPolicy SECOND_PERSON_ONLY = new ConfirmPolicy(SECOND_PERSON, Map.of(), List.of());

  /** From the hub conf's {@code approvals} object; IllegalArgumentException names a wrong value. */
  public static ConfirmPolicy fromConf(JsonObject approvals) {
    JsonObject conf = approvals == null ? new JsonObject() : approvals;
    String fallback = check("approvals.confirm", conf.getString("confirm",
      conf.getBoolean("allowElicitationSelfConfirm", false) ? USER : SECOND_PERSON));
    Map<String, String> byTool = new java.util.HashMap<>();
    conf.getJsonObject("confirmByTool", new JsonObject()).forEach(e ->
      byTool.put(e.getKey(), check("approvals.confirmByTool." + e.getKey(), String.valueOf(e.getValue()))));
    List<LabelRule> byLabel = new ArrayList<>();
    JsonArray rules = conf.getJsonArray("confirmByLabel", new JsonArray());
    for (int i = 0; i < rules.size(); i++) {
      JsonObject r = rules.getJsonObject(i);
      if (r.getJsonObject("labels") == null || r.getJsonObject("labels").isEmpty()) {
        throw new IllegalArgumentException("approvals.confirmByLabel[" + i + "] needs labels, e.g. {\"env\": \"prod\"}");
      }
      byLabel.add(new LabelRule(r.getJsonObject("labels").copy(), check("approvals.confirmByLabel[" + i + "].confirm",
        r.getString("confirm"))));
    }
    return new ConfirmPolicy(fallback, byTool, byLabel);
  }

  private static String check(String where, String value) {
    if (!USER.equals(value) && !SECOND_PERSON.equals(value)) {
      throw new IllegalArgumentException(where + " must be \"" + USER + "\" or \"" + SECOND_PERSON + "\", not " + value);
    }
    return value;
  }

  /** Who confirms {@code tool} called on a node with {@code nodeLabels} (a fan-out: the selector's labels). */
  public String forCall(String tool, JsonObject nodeLabels) {
    JsonObject labels = nodeLabels == null ? new JsonObject() : nodeLabels;
    for (LabelRule r : byLabel) {
      if (r.matches(labels)) {
        return r.confirm();
      }
    }
    return forTool(tool);
  }

  /** Who confirms {@code tool} where no label rule applies (shown in tools/list). */
  public String forTool(String tool) {
    return byTool.getOrDefault(tool, fallback);
  }

  /** The label rules, as tools/list and GET /api/v1/tools show them next to each tier-3 tool's own policy. */
  public JsonArray labelRules() {
    JsonArray out = new JsonArray();
    byLabel.forEach(r -> out.add(new JsonObject().put("labels", r.labels()).put("confirm", r.confirm())));
    return out;
  }
}
