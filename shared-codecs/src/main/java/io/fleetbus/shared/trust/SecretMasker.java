package io.fleetbus.shared.trust;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.HashSet;
import java.util.Map;
import java.util.Set;
import java.util.regex.Matcher;
import java.util.regex.Pattern;

/**
 * The one place secrets are masked. Before arguments reach an audit record or a log ({@link #mask}):
 * values of fields named like one (password, token, secret, key, credential …), {@code name=value}
 * pairs and {@code --password value} flags inside strings, URL user-info, bearer tokens and JWTs.
 * In what node tools hand back ({@link #maskValue}, {@link #maskLine}, {@link #maskTree}): secret-named
 * values and values that look like credentials whatever their name (well-known token prefixes, private
 * keys). It over-masks on purpose: a hidden harmless value costs less than a leaked key. A second wall
 * only: the first is never passing secrets to a logger at all.
 */
public final class SecretMasker {
  public static final String MASK = "***MASKED***";
  private static final String NAMES =
    "pass(?:word|wd|phrase)?|pwd|secret|token|key|private|credential|auth(?:orization)?|cookie|session";
  private static final Pattern SECRET_NAME = Pattern.compile("(?i).*(" + NAMES + ").*");
  private static final Pattern FLAG = Pattern.compile("(?i)-{1,2}[a-z0-9_-]*(" + NAMES + ")[a-z0-9_-]*");
  private static final Pattern PAIR = Pattern.compile(
    "(?i)([a-z0-9_.-]*(?:" + NAMES + ")[a-z0-9_.-]*)(\\s*[=:]\\s*|\\s+)(\"[^\"]*\"|'[^']*'|[^\\s&;,]+)");
  private static final Pattern URL_USERINFO = Pattern.compile("(?i)([a-z][a-z0-9+.-]*://[^:/@\\s]+:)([^@\\s]+)(@)");
  private static final Pattern BEARER = Pattern.compile("(?i)(bearer\\s+)([A-Za-z0-9._~+/=-]+)");
  private static final Pattern JWT = Pattern.compile("eyJ[A-Za-z0-9_-]{4,}\\.[A-Za-z0-9_-]{4,}\\.[A-Za-z0-9_-]{4,}");
  private static final Pattern FLEET_SECRET = Pattern.compile("\\bfb[ec]_[A-Za-z0-9_-]{20,}");
  /** A value that is a credential whatever it is called. */
  private static final Pattern TOKEN_VALUE = Pattern.compile(
    "(?i)(bearer|basic)\\s+[A-Za-z0-9._~+/=-]{8,}"
      + "|eyJ[A-Za-z0-9_-]{5,}\\.[A-Za-z0-9_-]{5,}\\.[A-Za-z0-9_-]*"
      + "|\\b(ghp|gho|ghu|ghs|ghr)_[A-Za-z0-9]{20,}|\\bgithub_pat_[A-Za-z0-9_]{20,}"
      + "|\\bsk-[A-Za-z0-9_-]{16,}|\\bxox[abprs]-[A-Za-z0-9-]{10,}|\\bAKIA[0-9A-Z]{16}\\b|\\bfb[ec]_[A-Za-z0-9_-]{20,}"
      + "|-----BEGIN [A-Z ]*PRIVATE KEY-----");
  /**
   * {@code name=value} or {@code "name": "value"} in a line of output, the name looking secret; an
   * authorization scheme word (Bearer, Basic) is left to {@link #TOKEN_VALUE}, which masks what follows it.
   */
  private static final Pattern NAMED_VALUE = Pattern.compile(
    "(?i)([A-Za-z0-9_.-]*(?:" + NAMES + ")[A-Za-z0-9_.-]*\"?\\s*[:=]\\s*\"?)(?!(?i:bearer|basic)\\s)([^\\s\"',;&]+)");

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

  public static boolean looksLikeToken(String value) {
    return value != null && TOKEN_VALUE.matcher(value).find();
  }

  /** A value a tool hands back, as it may be shown given the name it is stored under. */
  public static String maskValue(String name, String value) {
    return value != null && !value.isEmpty() && (isSecretName(name) || looksLikeToken(value)) ? MASK : value;
  }

  /** A line of output (a log line, a command line) with secret assignments and token-looking words replaced. */
  public static String maskLine(String text) {
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

  /** A copy of a JSON tree a tool hands back, secret-named and token-looking values masked (booleans kept). */
  public static JsonObject maskTree(JsonObject in) {
    JsonObject out = new JsonObject();
    for (Map.Entry<String, Object> e : in) {
      out.put(e.getKey(), maskTreeValue(e.getKey(), e.getValue()));
    }
    return out;
  }

  private static Object maskTreeValue(String name, Object v) {
    if (v instanceof JsonObject o) {
      return maskTree(o);
    }
    if (v instanceof JsonArray a) {
      JsonArray out = new JsonArray();
      a.forEach(x -> out.add(maskTreeValue(name, x)));
      return out;
    }
    if (v instanceof String s) {
      return maskValue(name, s);
    }
    return v != null && isSecretName(name) && !(v instanceof Boolean) ? MASK : v;
  }
}
