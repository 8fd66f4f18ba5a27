package io.fleetbus.shared.trust;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
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
  private static final Pattern BEARER = Pattern.compile("(?i)(bearer\\s+)([A-Za-z0-9._~+/=-]+)");
  private static final Pattern JWT = Pattern.compile("eyJ[A-Za-z0-9_-]{4,}\\.[A-Za-z0-9_-]{4,}\\.[A-Za-z0-9_-]{4,}");
  private static final Pattern FLEET_SECRET = Pattern.compile("\\bfb[ec]_[A-Za-z0-9_-]{20,}");

  private SecretMasker() {
  }

  /** A masked copy; the input is not changed. */
  public static JsonObject mask(JsonObject json) {
    return mask(json, new HashSet<>());
  }

  /** A masked copy; every value masked away is added to {@code found}, to scrub it from free text too. */
  public static JsonObject mask(JsonObject json, Set<String> found) {
    if (json == null) {
      return null;
    }
    JsonObject out = new JsonObject();
    for (Map.Entry<String, Object> e : json) {
      Object v = e.getValue();
      if (v != null && !(v instanceof JsonObject) && !(v instanceof JsonArray) && isSecretName(e.getKey())) {
        found.add(String.valueOf(v));
        out.put(e.getKey(), MASK);
      } else {
        out.put(e.getKey(), maskValue(v, found));
      }
    }
    return out;
  }

  public static boolean isSecretName(String name) {
    return name != null && SECRET_NAME.matcher(name).matches();
  }

  private static Object maskValue(Object v, Set<String> found) {
    if (v instanceof JsonObject o) {
      return mask(o, found);
    }
    if (v instanceof JsonArray a) {
      return mask(a, found);
    }
    if (v instanceof String s) {
      return mask(s, found);
    }
    return v;
  }

  /** An argv-like array: the word after a flag such as {@code --password} is masked too. */
  public static JsonArray mask(JsonArray array, Set<String> found) {
    JsonArray out = new JsonArray();
    boolean maskNext = false;
    for (Object v : array) {
      if (maskNext && (v instanceof String || v instanceof Number)) {
        found.add(String.valueOf(v));
        out.add(MASK);
        maskNext = false;
        continue;
      }
      maskNext = v instanceof String s && FLAG.matcher(s).matches();
      out.add(maskValue(v, found));
    }
    return out;
  }

  public static JsonArray mask(JsonArray array) {
    return mask(array, new HashSet<>());
  }

  public static String mask(String s) {
    return mask(s, new HashSet<>());
  }

  public static String mask(String s, Set<String> found) {
    if (s == null || s.isEmpty()) {
      return s;
    }
    String out = replace(URL_USERINFO, s, 2, found);
    out = replace(BEARER, out, 2, found);
    out = replace(JWT, out, 0, found);
    out = replace(FLEET_SECRET, out, 0, found);
    out = replace(PAIR, out, 3, found);
    return scrub(out, found);
  }

  /** Free text (a reason, a note) with every value already known to be secret replaced. */
  public static String scrub(String text, Set<String> secrets) {
    if (text == null) {
      return null;
    }
    String out = text;
    for (String secret : secrets) {
      if (secret.length() >= 4 && !MASK.equals(secret)) {
        out = out.replace(secret, MASK);
      }
    }
    return out;
  }

  /** Replaces group {@code g} of every match with the mask, remembering what it hid. */
  private static String replace(Pattern p, String text, int g, Set<String> found) {
    Matcher m = p.matcher(text);
    StringBuilder out = new StringBuilder();
    while (m.find()) {
      String secret = m.group(g);
      String unquoted = secret.length() > 1 && (secret.startsWith("\"") || secret.startsWith("'"))
        ? secret.substring(1, secret.length() - 1) : secret;
      if (!MASK.equals(unquoted)) {
        found.add(unquoted);
      }
      String whole = m.group();
      int from = m.start(g) - m.start();
      int to = m.end(g) - m.start();
      m.appendReplacement(out, Matcher.quoteReplacement(whole.substring(0, from) + MASK + whole.substring(to)));
    }
    m.appendTail(out);
    return out.toString();
  }
}
