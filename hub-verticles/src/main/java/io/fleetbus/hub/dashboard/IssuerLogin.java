package io.fleetbus.hub.dashboard;

import io.fleetbus.hub.settings.DashboardClient;
import io.fleetbus.hub.settings.IssuerSettings;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.JWTOptions;
import io.vertx.ext.auth.User;
import io.vertx.ext.auth.oauth2.OAuth2Auth;
import io.vertx.ext.auth.oauth2.OAuth2AuthorizationURL;
import io.vertx.ext.auth.oauth2.OAuth2FlowType;
import io.vertx.ext.auth.oauth2.OAuth2Options;
import io.vertx.ext.auth.oauth2.Oauth2Credentials;
import io.vertx.ext.auth.oauth2.providers.OpenIDConnectAuth;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The dashboard as a client of one issuer (vertx-auth-oauth2): discovery of its endpoints and keys, the authorization
 * URL (code, PKCE S256, state, nonce, RFC 8707 resource), and the code exchange. vertx-auth-oauth2 checks the ID
 * token's signature, issuer, audience (our client id), azp and expiry, but on a failed check it only leaves the ID
 * token out, and it never compares the nonce: both are checked here, so a login without a verified ID token carrying
 * this attempt's nonce fails. The access token is the caller's business ({@link DashboardLogin} checks it as a bearer).
 */
final class IssuerLogin {
  private static final Logger LOG = LoggerFactory.getLogger(IssuerLogin.class);

  private final Vertx vertx;
  private final IssuerSettings issuer;
  private final DashboardClient client;
  private Future<OAuth2Auth> discovered;

  IssuerLogin(Vertx vertx, IssuerSettings issuer) {
    this.vertx = vertx;
    this.issuer = issuer;
    this.client = issuer.dashboard();
  }

  String name() {
    return client.name();
  }

  /** The issuer's authorization URL for this attempt. */
  Future<String> authorizationUrl(LoginAttempts.Attempt attempt, String state) {
    return oauth().map(oauth -> {
      OAuth2AuthorizationURL url = new OAuth2AuthorizationURL().setRedirectUri(attempt.redirectUri())
        .setScopes(client.scopes()).setState(state).setCodeChallenge(attempt.challenge()).setCodeChallengeMethod("S256")
        .putAdditionalParameter("nonce", attempt.nonce());
      if (client.resource() != null) {
        url.putAdditionalParameter("resource", client.resource());
      }
      return oauth.authorizeURL(url);
    });
  }

  /** The access token the code stands for, once the ID token is verified and carries this attempt's nonce. */
  Future<String> exchange(String code, LoginAttempts.Attempt attempt) {
    // the keys fetched afresh for each sign-in (people sign in rarely): an issuer that rotated its key is followed
    return oauth().compose(oauth -> oauth.jWKSet().map(oauth))
      .compose(oauth -> oauth.authenticate(new Oauth2Credentials().setFlow(OAuth2FlowType.AUTH_CODE).setCode(code)
        .setRedirectUri(attempt.redirectUri()).setCodeVerifier(attempt.verifier())))
      .recover(err -> Future.failedFuture(FailureCode.UNAUTHORIZED.exception("the issuer '" + issuer.issuer()
        + "' did not exchange the code: " + err.getMessage())))
      .compose(user -> accessToken(user, attempt.nonce()));
  }

  /** The access token of a code exchange, once the verified ID token carries this attempt's nonce. */
  Future<String> accessToken(User user, String nonce) {
    JsonObject idToken = user.attributes().getJsonObject("idToken");
    if (idToken == null) {
      return Future.failedFuture(FailureCode.UNAUTHORIZED.exception("the issuer's ID token is missing or does not verify"
        + " (signature, issuer, audience '" + client.clientId() + "' or expiry): not signed in"));
    }
    if (!nonce.equals(idToken.getString("nonce"))) {
      return Future.failedFuture(FailureCode.UNAUTHORIZED.exception("the issuer's ID token carries another nonce than"
        + " this sign-in's (a replayed ID token): not signed in"));
    }
    String token = user.principal().getString("access_token");
    return token == null ? Future.failedFuture(FailureCode.UNAUTHORIZED.exception("the issuer gave no access token"))
      : Future.succeededFuture(token);
  }

  /** Discovered once, again after a failure (the issuer was down); on the API verticle's event loop only. */
  private Future<OAuth2Auth> oauth() {
    if (discovered == null || discovered.failed()) {
      OAuth2Options options = new OAuth2Options().setSite(issuer.issuer()).setClientId(client.clientId())
        .setValidateIssuer(true).setJWTOptions(new JWTOptions().setLeeway(30));
      discovered = OpenIDConnectAuth.discover(vertx, options).onFailure(err -> LOG.warn(
        "issuer discovery failed [issuer: {}, reason: {}]", issuer.issuer(), err.getMessage()));
    }
    return discovered;
  }
}
