package io.fleetbus.node.tools.sandbox;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Hides secrets in what tools hand back: values whose names look secret, and values that look like
 * credentials whatever their name (bearer headers, JWTs, well-known token prefixes, private keys).
 * It over-masks on purpose: a hidden harmless value costs less than a leaked key.
 */
public final class SecretMask {
  public static final String MASK = "***MASKED***";
  private static final String NAME_WORDS = "SECRET|TOKEN|PASSWORD|PASSWD|PASSPHRASE|KEY|PRIVATE|CREDENTIAL";
  private static final Pattern SECRET_NAME = Pattern.compile("(?i).*(" + NAME_WORDS + ").*");
  private static final Pattern TOKEN_VALUE = Pattern.compile(
    "(?i)(bearer|basic)\\s+[A-Za-z0-9._~+/=-]{8,}"
      + "|eyJ[A-Za-z0-9_-]{5,}\\.[A-Za-z0-9_-]{5,}\\.[A-Za-z0-9_-]*"
      + "|\\b(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|\\bgithub_pat_[A-Za-z0-9_]{20,}"
      + "|\\bsk-[A-Za-z0-9_-]{16,}|\\bxox[abprs]-[A-Za-z0-9-]{10,}|\\bAKIA[0-9A-Z]{16}\\b"
      + "|-----BEGIN [A-Z ]*PRIVATE KEY-----");
  private static final Pattern NAMED_VALUE = Pattern.compile(
    "(?i)([A-Za-z0-9_.-]*(?:" + NAME_WORDS + ")[A-Za-z0-9_.-]*\"?\\s*[:=]\\s*\"?)([^\\s\"',;&]+)");

  private SecretMask() {
  }

  public static boolean secretName(String name) {
    return name != null && SECRET_NAME.matcher(name).matches();
  }

  public static boolean looksLikeToken(String value) {
    return value != null && TOKEN_VALUE.matcher(value).find();
  }

  /** The value as it may be shown, given the name it is stored under. */
  public static String value(String name, String value) {
    return value != null && !value.isEmpty() && (secretName(name) || looksLikeToken(value)) ? MASK : value;
  }

  /** A free-text line (a log line) with secret assignments and token-looking words replaced. */
  public static String line(String text) {
    if (text == null || text.isEmpty()) {
      return text;
    }
    String out = NAMED_VALUE.matcher(text).replaceAll(m -> Matcher.quoteReplacement(m.group(1) + MASK));
    return TOKEN_VALUE.matcher(out).replaceAll(m -> {
      String g = m.group();
      int blank = g.indexOf(' ');
      boolean scheme = g.regionMatches(true, 0, "bearer", 0, 6) || g.regionMatches(true, 0, "basic", 0, 5);
      return Matcher.quoteReplacement(scheme && blank > 0 ? g.substring(0, blank + 1) + MASK : MASK);
    });
  }

  /** A copy of a JSON tree with secret-named and token-looking values masked. */
  public static JsonObject json(JsonObject in) {
    JsonObject out = new JsonObject();
    for (Map.Entry<String, Object> e : in) {
      out.put(e.getKey(), masked(e.getKey(), e.getValue()));
    }
    return out;
  }

  private static Object masked(String name, Object v) {
    if (v instanceof JsonObject o) {
      return json(o);
    }
    if (v instanceof JsonArray a) {
      JsonArray out = new JsonArray();
      a.forEach(x -> out.add(masked(name, x)));
      return out;
    }
    if (v instanceof String s) {
      return value(name, s);
    }
    return v != null && secretName(name) && !(v instanceof Boolean) ? MASK : v;
  }
}
