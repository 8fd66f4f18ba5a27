package io.fleetbus.hub.authz;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.User;
import io.vertx.ext.web.RoutingContext;
import java.util.List;

/**
 * Who is calling, from the verified JWT: its subject and roles, and what identifies the token itself ({@code token}:
 * its {@code sub}, {@code jti}, {@code iat} — what a revocation is matched against; never the token).
 */
public record Caller(String subject, List<String> roles, JsonObject token) {

  public Caller(String subject, List<String> roles) {
    this(subject, roles, new JsonObject().put("sub", subject));
  }

  /** Null when the caller holds one of {@code anyOf}, else the 403 message naming the role needed. */
  public String lacks(String action, String... anyOf) {
    for (String role : anyOf) {
      if (roles.contains(role)) {
        return null;
      }
    }
    return action + " needs the role '" + String.join("' or '", anyOf) + "'; your roles are " + roles;
  }

  @SuppressWarnings("unchecked")
  public static Caller of(RoutingContext ctx) {
    return of(ctx.user());
  }

  /**
   * What identifies a verified user's token: {@code sub}, {@code jti}, {@code iat} (vertx-auth-jwt keeps iat and exp
   * in the user's attributes, the other claims in its principal).
   */
  public static JsonObject tokenOf(User user) {
    JsonObject p = user.principal();
    JsonObject a = user.attributes() == null ? new JsonObject() : user.attributes();
    return new JsonObject().put("sub", p.getValue("sub", a.getValue("sub"))).put("jti", p.getValue("jti"))
      .put("iat", p.getValue("iat", a.getValue("iat")));
  }

  /** The caller a verified token stands for (frontends that authenticate outside the router use this). */
  @SuppressWarnings("unchecked")
  public static Caller of(User user) {
    Object roles = user.principal().getValue("roles");
    List<String> list = roles instanceof JsonArray a ? (List<String>) (List<?>) a.getList() : List.of();
    String sub = user.principal().getString("sub", "unknown");
    return new Caller(sub, List.copyOf(list), tokenOf(user));
  }
}
