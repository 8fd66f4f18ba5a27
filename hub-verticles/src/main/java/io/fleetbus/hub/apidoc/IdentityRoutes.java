package io.fleetbus.hub.apidoc;

import static io.fleetbus.hub.apidoc.JsonSchemas.integer;
import static io.fleetbus.hub.apidoc.JsonSchemas.ref;
import static io.fleetbus.hub.apidoc.JsonSchemas.str;

import java.util.List;

/** The routes of who a caller is and of the dashboard's sign-in at a trusted issuer (part of {@link ApiRoutes}). */
final class IdentityRoutes {
  private IdentityRoutes() {
  }

  static List<RouteDoc> all() {
    return List.of(
      new RouteDoc("whoami", "get", "/api/v1/whoami", "users", "Who the token stands for at this hub: its subject and"
        + " fleetbus roles (for an issuer's token, the roles its groups map to)")
        .answers("200", "the caller", ref("Whoami")),
      new RouteDoc("loginOptions", "get", "/login/options", "ops", "The issuers the dashboard offers to sign in with")
        .open().neverRefuses()
        .answers("200", "the issuers (none when no auth.issuers[].dashboard is set)", ref("LoginOptions")),
      new RouteDoc("loginStart", "get", "/login/start", "ops", "The dashboard's sign-in: to the issuer's authorization"
        + " endpoint (code, PKCE S256, state, nonce), with an HttpOnly cookie binding the attempt to this browser").open()
        .query("issuer", integer(), "the issuer's id from /login/options")
        .answers("303", "to the issuer (or back to the dashboard when it cannot be reached)", null, null)
        .answers("404", "no such issuer signs people in to the dashboard", ref("Error")),
      new RouteDoc("loginCallback", "get", "/login/callback", "ops", "Where the issuer sends the browser back (code and"
        + " state): the hub exchanges the code and checks the tokens; the outcome waits for POST /login/session").open()
        .neverRefuses()
        .query("code", str(), "the authorization code").query("state", str(), "the attempt's state")
        .query("error", str(), "the issuer's refusal").query("error_description", str(), "its words")
        .answers("303", "back to the dashboard", null, null),
      new RouteDoc("loginSession", "post", "/login/session", "ops", "The outcome of this browser's sign-in, once (the"
        + " login cookie names it): the access token, or why it was refused").open()
        .answers("200", "signed in", ref("LoginSession"))
        .answers("204", "no sign-in waits for this browser", null, null)
        .answers("401", "refused: the message names the rule (audience, roles mapping, nonce, state)", ref("Error"))
        .answers("403", "origin not allowed", ref("Error"))
        .answers("503", "the issuer could not be reached", ref("Error")));
  }
}
