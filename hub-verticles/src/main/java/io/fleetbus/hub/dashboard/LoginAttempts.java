package io.fleetbus.hub.dashboard;

import io.fleetbus.shared.fault.FaultSwitch;
import io.fleetbus.shared.trust.Digests;
import io.vertx.core.json.JsonObject;
import java.nio.charset.StandardCharsets;
import java.security.MessageDigest;
import java.security.SecureRandom;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The dashboard's sign-ins under way, by their {@code state}, and their outcomes waiting for the page, by the browser's
 * login cookie. Each attempt is bound to the browser that started it (the cookie's random value) and used once: a code
 * and state that arrive in another browser (login CSRF: an attacker's own code planted in a victim's browser), a second
 * time, or after ten minutes sign nobody in. Both maps are bounded: starting sign-ins needs no token.
 */
final class LoginAttempts {
  static final long ATTEMPT_MS = 10 * 60_000;
  static final long OUTCOME_MS = 60_000;
  static final int MAX = 1_000;
  private static final SecureRandom RANDOM = new SecureRandom();

  /** One sign-in: the PKCE verifier (its S256 challenge goes to the issuer), the nonce its ID token must carry. */
  record Attempt(String binding, int issuer, String verifier, String nonce, String redirectUri, long expiresAtMs) {
    String challenge() {
      return Digests.base64Url(Digests.sha256(verifier.getBytes(StandardCharsets.US_ASCII)));
    }

    boolean startedBy(String cookie) {
      if (FaultSwitch.LOGIN_UNBOUND.on()) {
        return true;
      }
      return cookie != null && MessageDigest.isEqual(binding.getBytes(StandardCharsets.US_ASCII),
        cookie.getBytes(StandardCharsets.US_ASCII));
    }
  }

  private record Outcome(JsonObject answer, long expiresAtMs) {
  }

  private final Map<String, Attempt> byState = new ConcurrentHashMap<>();
  private final Map<String, Outcome> byBinding = new ConcurrentHashMap<>();

  /** 32 random bytes, base64url: login cookies, states, nonces and PKCE verifiers (43 characters, as RFC 7636 asks). */
  static String random() {
    byte[] b = new byte[32];
    RANDOM.nextBytes(b);
    return Digests.base64Url(b);
  }

  /** A new attempt of the browser holding {@code binding}; its state is the key the issuer sends back. */
  String begin(String binding, int issuer, String redirectUri, long now) {
    prune(now);
    String state = random();
    byState.put(state, new Attempt(binding, issuer, random(), random(), redirectUri, now + ATTEMPT_MS));
    return state;
  }

  Attempt attempt(String state) {
    return state == null ? null : byState.get(state);
  }

  /** The attempt of {@code state}, removed (a state is good once); null when unknown or expired. */
  Attempt take(String state, long now) {
    Attempt a = state == null ? null : byState.remove(state);
    return a == null || a.expiresAtMs() < now ? null : a;
  }

  void finish(String binding, JsonObject answer, long now) {
    prune(now);
    byBinding.put(binding, new Outcome(answer, now + OUTCOME_MS));
  }

  /** The outcome waiting for this browser, removed (the page collects it once); null when there is none. */
  JsonObject collect(String binding, long now) {
    Outcome o = binding == null ? null : byBinding.remove(binding);
    return o == null || o.expiresAtMs() < now ? null : o.answer();
  }

  private void prune(long now) {
    byState.values().removeIf(a -> a.expiresAtMs() < now);
    byBinding.values().removeIf(o -> o.expiresAtMs() < now);
    // a flood of unfinished sign-ins: the oldest ones go (a person's own is at most minutes old)
    while (byState.size() >= MAX) {
      byState.entrySet().stream().min(java.util.Comparator.comparingLong(e -> e.getValue().expiresAtMs()))
        .ifPresent(e -> byState.remove(e.getKey()));
    }
    if (byBinding.size() >= MAX) {
      byBinding.clear();
    }
  }
}
