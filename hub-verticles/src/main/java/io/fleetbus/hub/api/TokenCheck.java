package io.fleetbus.hub.api;

import io.fleetbus.hub.authz.Caller;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.Future;
import io.vertx.ext.auth.authentication.TokenCredentials;
import io.vertx.ext.auth.jwt.JWTAuth;

/** Verifies a bearer JWT for frontends that are not behind the router's JWT handler (WebSocket, MCP, bridges). */
public final class TokenCheck {
  private final JWTAuth auth;

  public TokenCheck(JWTAuth auth) {
    this.auth = auth;
  }

  /** Whether the token a caller was verified with has been revoked since (for connections verified once). */
  public boolean revoked(Caller caller) {
    return io.fleetbus.hub.auth.UserTokens.revocationsOf(auth).revokes(caller.token());
  }

  /** {@code value} is a raw JWT or an {@code Authorization} header value; fails with a 401 FleetException. */
  public Future<Caller> verify(String value) {
    String token = value == null ? "" : value.strip();
    if (token.regionMatches(true, 0, "Bearer ", 0, 7)) {
      token = token.substring(7).strip();
    }
    if (token.isEmpty()) {
      return Future.failedFuture(FailureCode.UNAUTHORIZED.exception("no token: send a JWT as Authorization: Bearer <JWT>"));
    }
    return auth.authenticate(new TokenCredentials(token)).map(Caller::of)
      .recover(err -> Future.failedFuture(err instanceof io.fleetbus.shared.bus.FleetException ? err
        : FailureCode.UNAUTHORIZED.exception("the token is invalid or expired")));
  }
}
