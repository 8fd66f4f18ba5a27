package io.fleetbus.hub.auth;

import io.vertx.core.json.JsonObject;

/**
 * One revocation: a token by its id ({@code jti}), or every token of a subject issued at or before {@code revokedAt}.
 * Kept until {@code keepUntil}: the revoked token's expiry, or for a subject the latest expiry any token issued before
 * could have (its issue time plus the hub's maximum token lifetime). Epoch milliseconds throughout.
 */
public record Revocation(Kind kind, String value, long revokedAt, long keepUntil, String by) {
  /**
   * Hub-local publish of each revocation as it comes into force here (made on this hub or heard from another): open
   * sessions whose token it covers close ({@link #toJson} as the body).
   */
  public static final String REVOKED = "fleet.hub.revoked";

  /** What is revoked. */
  public enum Kind {
    TOKEN, SUBJECT;

    public String label() {
      return name().toLowerCase(java.util.Locale.ROOT);
    }
  }

  /** The key this revocation is kept under: {@code token:<jti>} or {@code subject:<sub>}. */
  public String key() {
    return kind.label() + ":" + value;
  }

  /**
   * Whether this revocation refuses a token with these claims. A subject's tokens issued within the same second as
   * the revocation are refused too ({@code iat} counts whole seconds); a token without {@code iat} counts as issued
   * before.
   */
  public boolean covers(JsonObject claims) {
    if (kind == Kind.TOKEN) {
      return value.equals(claims.getValue("jti"));
    }
    if (!value.equals(claims.getValue("sub"))) {
      return false;
    }
    Object iat = claims.getValue("iat");
    return !(iat instanceof Number n) || n.longValue() * 1000 <= revokedAt;
  }

  /** The later of two revocations of the same key (a subject revoked twice: the later cut-off counts). */
  public Revocation laterOf(Revocation other) {
    if (other == null) {
      return this;
    }
    return new Revocation(kind, value, Math.max(revokedAt, other.revokedAt), Math.max(keepUntil, other.keepUntil),
      revokedAt >= other.revokedAt ? by : other.by);
  }

  public JsonObject toJson() {
    return new JsonObject().put("kind", kind.label()).put(kind == Kind.TOKEN ? "tokenId" : "subject", value)
      .put("revokedAt", revokedAt).put("keepUntil", keepUntil).put("by", by);
  }

  public static Revocation fromJson(JsonObject j) {
    Kind kind = "token".equals(j.getString("kind")) ? Kind.TOKEN : Kind.SUBJECT;
    return new Revocation(kind, j.getString(kind == Kind.TOKEN ? "tokenId" : "subject"), j.getLong("revokedAt", 0L),
      j.getLong("keepUntil", 0L), j.getString("by"));
  }
}
