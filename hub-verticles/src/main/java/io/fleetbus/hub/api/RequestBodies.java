package io.fleetbus.hub.api;

import io.fleetbus.shared.catalog.SchemaCheck;
import io.fleetbus.shared.text.JsonText;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.RoutingContext;

/**
 * The JSON bodies of the REST API other than tool arguments, each as the JSON Schema that both checks it here and
 * describes it in the OpenAPI document (so the two cannot drift apart). Refusals name the field.
 */
public final class RequestBodies {
  private static final SchemaCheck ENROLLMENT = new SchemaCheck("an enrollment", enrollment());
  private static final SchemaCheck DECISION = new SchemaCheck("a decision", decision());
  private static final SchemaCheck REVOCATION = new SchemaCheck("a revocation", revocation());

  private RequestBodies() {
  }

  /** {@code POST /api/v1/enrollments}: both fields optional (null as if absent, as the CLI sends them). */
  public static JsonObject enrollment() {
    return object(new JsonObject()
      .put("nodeId", new JsonObject().put("description", "the only node id the token enrolls; any id when absent")
        .put("anyOf", new JsonArray().add(new JsonObject().put("type", "string").put("pattern", "^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$"))
          .add(new JsonObject().put("type", "null"))))
      .put("ttlMinutes", new JsonObject().put("description", "minutes the token stays valid (the hub's enrollmentTtlMinutes"
          + " when absent)")
        .put("anyOf", new JsonArray().add(new JsonObject().put("type", "integer").put("minimum", 1).put("maximum", 10_080))
          .add(new JsonObject().put("type", "null")))));
  }

  /** {@code POST /api/v1/approvals/{id}/approve|deny}: an optional reason, shown to the requester. */
  public static JsonObject decision() {
    return object(new JsonObject().put("reason", new JsonObject().put("type", new JsonArray().add("string").add("null"))
      .put("description", "why (shown to the requester and kept in the audit)")));
  }

  /** {@code POST /api/v1/revocations}: one token by its id, or every token of a subject issued until now. */
  public static JsonObject revocation() {
    JsonObject text = new JsonObject().put("type", "string").put("minLength", 1).put("maxLength", 256)
      .put("pattern", "^\\P{Cc}+$");
    JsonObject tokenId = text.copy().put("description", "the token's id (its jti claim): that one token is refused");
    JsonObject subject = text.copy().put("description", "a subject (sub claim): every token of it issued until now is"
      + " refused");
    // each branch names the property it requires (strict JSON Schema: a required property is defined beside it)
    return object(new JsonObject().put("tokenId", tokenId).put("subject", subject))
      .put("oneOf", new JsonArray()
        .add(new JsonObject().put("properties", new JsonObject().put("tokenId", tokenId)).put("required",
          new JsonArray().add("tokenId")))
        .add(new JsonObject().put("properties", new JsonObject().put("subject", subject)).put("required",
          new JsonArray().add("subject"))));
  }

  /** {@code POST /api/v1/calls}: a tool by target (documented here; CallRoutes and Selector check it field by field). */
  public static JsonObject callByTarget() {
    JsonObject str = new JsonObject().put("type", "string");
    return object(new JsonObject()
        .put("tool", str.copy().put("description", "the tool's name or alias"))
        .put("args", new JsonObject().put("type", "object").put("description", "the tool's arguments"))
        .put("node", str.copy().put("description", "a node id (or give a selector instead)"))
        .put("labels", new JsonObject().put("type", "object").put("additionalProperties", str)
          .put("description", "nodes whose labels include all of these"))
        .put("platform", str.copy().put("description", "nodes of this operating system family (linux, windows …)"))
        .put("minCapabilityTier", new JsonObject().put("enum", new JsonArray().add("unprivileged").add("sudo").add("root")))
        .put("mode", new JsonObject().put("enum", new JsonArray().add("one").add("all"))
          .put("description", "one: the least-loaded eligible node; all: every eligible node, one entry each"))
        .put("maxConcurrency", new JsonObject().put("type", "integer").put("minimum", 1).put("maximum", 1000))
        .put("maxErrors", new JsonObject().put("type", "integer").put("minimum", 1))
        .put("nodes", new JsonObject().put("type", "array").put("items", str)
          .put("description", "only these node ids (with a selector)")))
      .put("required", new JsonArray().add("tool"));
  }

  /** {@code POST /api/v1/nodes/{nodeId}/config}: documented here; the node checks and names what it cannot change. */
  public static JsonObject configUpdate() {
    JsonObject strings = new JsonObject().put("type", "array").put("items", new JsonObject().put("type", "string"));
    return object(new JsonObject()
      .put("heartbeatIntervalMs", new JsonObject().put("type", "integer"))
      .put("allowlist", object(new JsonObject().put("add", strings.copy()).put("remove", strings.copy())))
      .put("logPaths", strings.copy())
      .put("labels", new JsonObject().put("type", "object").put("additionalProperties", new JsonObject().put("type", "string"))));
  }

  /** The body as a JSON object (empty when absent): 400 "body is not JSON: … (line, column)" otherwise. */
  static JsonObject json(RoutingContext ctx) {
    return JsonText.object(ctx.body() == null ? null : ctx.body().asString(), "body");
  }

  /** The enrollment body, checked: 400 naming each field that is unknown or wrong. */
  static JsonObject enrollment(RoutingContext ctx) {
    JsonObject body = json(ctx);
    ENROLLMENT.check(body, "invalid enrollment");
    return body;
  }

  /** The approve/deny body, checked: 400 naming each field that is unknown or wrong. */
  static JsonObject decision(RoutingContext ctx) {
    JsonObject body = json(ctx);
    DECISION.check(body, "invalid decision");
    return body;
  }

  /** The revocation body, checked: 400 naming the field that is missing, unknown or wrong. */
  static JsonObject revocation(RoutingContext ctx) {
    JsonObject body = json(ctx);
    boolean token = body.containsKey("tokenId");
    boolean subject = body.containsKey("subject");
    if (token == subject) {
      throw io.fleetbus.shared.bus.FailureCode.BAD_REQUEST.exception("invalid revocation: give exactly one of"
        + " 'tokenId' (one token) or 'subject' (every token of a subject)" + (token ? ", not both" : ""));
    }
    REVOCATION.check(body, "invalid revocation");
    return body;
  }

  private static JsonObject object(JsonObject properties) {
    return new JsonObject().put("type", "object").put("properties", properties).put("additionalProperties", false);
  }
}
