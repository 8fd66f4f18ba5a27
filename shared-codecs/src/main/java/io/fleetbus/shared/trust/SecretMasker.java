package io.fleetbus.shared.trust;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * Masks what looks like a secret before arguments reach an audit record or a log: values of fields
 * named like one (password, token, secret, key, credential …), {@code name=value} pairs and
 * {@code --password value} flags inside strings, URL user-info, bearer tokens and JWTs.
 * A second wall only: the first is never passing secrets to a logger at all.
 */
public final class SecretMasker {
  public static final String MASK = "***MASKED***";
  private static final String NAMES =
    "pass(?:word|wd|phrase)?|pwd|secret|token|api[_-]?key|apikey|access[_-]?key|private[_-]?key|credential|auth(?:orization)?|cookie|session";
  private static final Pattern SECRET_NAME = Pattern.compile("(?i).*(" + NAMES + ").*");
  private static final Pattern FLAG = Pattern.compile("(?i)-{1,2}[a-z0-9_-]*(" + NAMES + ")[a-z0-9_-]*");
  private static final Pattern PAIR = Pattern.compile(
    "(?i)([a-z0-9_.-]*(?:" + NAMES + ")[a-z0-9_.-]*)(\\s*[=:]\\s*|\\s+)(\"[^\"]*\"|'[^']*'|[^\\s&;,]+)");
  private static final Pattern URL_USERINFO = Pattern.compile("(?i)([a-z][a-z0-9+.-]*://[^:/@\\s]+:)([^@\\s]+)(@)");
  private static final Pattern BEARER = Pattern.compile("(?i)(bearer\\s+)[A-Za-z0-9._~+/=-]+");
  private static final Pattern JWT = Pattern.compile("eyJ[A-Za-z0-9_-]{4,}\\.[A-Za-z0-9_-]{4,}\\.[A-Za-z0-9_-]{4,}");
  private static final Pattern FLEET_SECRET = Pattern.compile("\\bfb[ec]_[A-Za-z0-9_-]{20,}");

  private SecretMasker() {
  }

  /** A masked copy; the input is not changed. */
  public static JsonObject mask(JsonObject json) {
    if (json == null) {
      return null;
    }
    JsonObject out = new JsonObject();
    for (Map.Entry<String, Object> e : json) {
      Object v = e.getValue();
      if (v != null && !(v instanceof JsonObject) && !(v instanceof JsonArray) && isSecretName(e.getKey())) {
        out.put(e.getKey(), MASK);
      } else {
        out.put(e.getKey(), maskValue(v));
      }
    }
    return out;
  }

  public static boolean isSecretName(String name) {
    return name != null && SECRET_NAME.matcher(name).matches();
  }

  private static Object maskValue(Object v) {
    if (v instanceof JsonObject o) {
      return mask(o);
    }
    if (v instanceof JsonArray a) {
      return mask(a);
    }
    if (v instanceof String s) {
      return mask(s);
    }
    return v;
  }

  /** An argv-like array: the word after a flag such as {@code --password} is masked too. */
  public static JsonArray mask(JsonArray array) {
    JsonArray out = new JsonArray();
    boolean maskNext = false;
    for (Object v : array) {
      if (maskNext && (v instanceof String || v instanceof Number)) {
        out.add(MASK);
        maskNext = false;
        continue;
      }
      maskNext = v instanceof String s && FLAG.matcher(s).matches();
      out.add(maskValue(v));
    }
    return out;
  }

  public static String mask(String s) {
    if (s == null || s.isEmpty()) {
      return s;
    }
    String out = URL_USERINFO.matcher(s).replaceAll("$1" + Matcher.quoteReplacement(MASK) + "$3");
    out = BEARER.matcher(out).replaceAll("$1" + Matcher.quoteReplacement(MASK));
    out = JWT.matcher(out).replaceAll(Matcher.quoteReplacement(MASK));
    out = FLEET_SECRET.matcher(out).replaceAll(Matcher.quoteReplacement(MASK));
    return PAIR.matcher(out).replaceAll(m -> Matcher.quoteReplacement(m.group(1) + m.group(2) + MASK));
  }
}
