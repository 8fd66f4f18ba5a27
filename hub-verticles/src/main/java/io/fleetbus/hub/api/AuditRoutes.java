package io.fleetbus.hub.api;

import io.fleetbus.hub.apidoc.ApiRoutes;
import io.fleetbus.hub.audit.AuditBus;
import io.fleetbus.hub.authz.Access;
import io.fleetbus.hub.authz.Caller;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.hub.calls.CallBus;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.catalog.Tiers;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.web.Router;
import io.vertx.ext.web.RoutingContext;
import java.time.Instant;
import java.time.format.DateTimeParseException;

/** The audit trail: filtered listing (others' entries for admins and approvers, see Access), the hash-chain check. */
final class AuditRoutes {
  private final Vertx vertx;

  AuditRoutes(Vertx vertx) {
    this.vertx = vertx;
  }

  void mount(Router api) {
    ApiRoutes.bind(api, ApiRoutes.REST, "queryAudit").handler(this::list);
    ApiRoutes.bind(api, ApiRoutes.REST, "verifyAudit").handler(this::verify);
  }

  private void list(RoutingContext ctx) {
    JsonObject q = new JsonObject();
    for (String f : new String[] {"node", "tool", "principal", "outcome"}) {
      q.put(f, ctx.request().getParam(f));
    }
    try {
      q.put("since", since(ctx.request().getParam("since")));
      String limit = ctx.request().getParam("limit");
      q.put("limit", limit == null ? 100 : Integer.parseInt(limit));
      if (q.getInteger("limit") < 1 || q.getInteger("limit") > 1000) {
        throw new NumberFormatException();
      }
    } catch (NumberFormatException | DateTimeParseException e) {
      HttpErrors.send(ctx, FailureCode.BAD_REQUEST, "since must be epoch milliseconds or an ISO-8601 instant"
        + " (2025-01-31T12:00:00Z); limit a whole number from 1 to 1000");
      return;
    }
    try {
      answer(ctx, AuditBus.client(vertx).query(Access.auditQuery(Caller.of(ctx), q)));
    } catch (FleetException e) {
      HttpErrors.send(ctx, e.code(), e.getMessage());
    }
  }

  /**
   * The chain check speaks of every entry: approvers and admins. It also checks every call whose end this hub
   * recorded since it started against the audit: a call record without its audit entry (the write failed) is named
   * in {@code unaudited} and makes the check fail.
   */
  private void verify(RoutingContext ctx) {
    String lacks = Caller.of(ctx).lacks("checking the audit chain", Tiers.ADMIN, Tiers.APPROVER);
    if (lacks != null) {
      HttpErrors.send(ctx, FailureCode.FORBIDDEN, lacks);
      return;
    }
    CallBus.client(vertx).ended()
      .map(ended -> new JsonObject().put("finishedCalls", ended))
      .otherwise(new JsonObject())
      .onSuccess(ended -> {
        JsonArray finished = ended.getJsonArray("finishedCalls");
        answer(ctx, AuditBus.client(vertx).verify(finished == null ? null : finished.stream().map(String::valueOf).toList()));
      });
  }

  private static long since(String value) {
    if (value == null || value.isBlank()) {
      return 0;
    }
    return value.chars().allMatch(Character::isDigit) ? Long.parseLong(value) : Instant.parse(value).toEpochMilli();
  }

  private static void answer(RoutingContext ctx, Future<JsonObject> answer) {
    answer.onSuccess(body -> CallRoutes.json(ctx, 200, body))
      .onFailure(err -> HttpErrors.fail(ctx, err));
  }
}
