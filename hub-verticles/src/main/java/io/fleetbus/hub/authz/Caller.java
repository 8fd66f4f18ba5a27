package io.fleetbus.hub.authz;

import io.vertx.core.json.JsonArray;
import io.vertx.ext.auth.User;
import io.vertx.ext.web.RoutingContext;
import java.util.List;

/** Who is calling, from the verified JWT: its subject and roles. */
public record Caller(String subject, List<String> roles) {

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

  /** The caller a verified token stands for (frontends that authenticate outside the router use this). */
  @SuppressWarnings("unchecked")
  public static Caller of(User user) {
    Object roles = user.principal().getValue("roles");
    List<String> list = roles instanceof JsonArray a ? (List<String>) (List<?>) a.getList() : List.of();
    String sub = user.principal().getString("sub", "unknown");
    return new Caller(sub, List.copyOf(list));
  }
}
