package io.fleetbus.node.tools.sandbox;

import io.fleetbus.shared.bus.FailureCode;
import java.nio.file.InvalidPathException;
import java.nio.file.Path;
import java.text.Normalizer;
import java.util.Locale;

/**
 * The syntax a path argument must have before anything looks at the disk: absolute, plain
 * characters, no '.' or '..' segments, no empty segments, no trailing slash. Refusing these outright
 * (400) leaves no room for tricks that a later normalisation might turn into another place.
 */
public final class PathArgument {
  private static final int MAX_LENGTH = 4096;
  private static final int MAX_SEGMENT = 255;
  /** Slash and dot look-alikes that Unicode normalisation keeps as they are. */
  private static final String LOOK_ALIKES = "\u2044\u2215\u29f8\u29f5\u2216\u2571\u27cb\u2cc6\u3033\ufe68"
    + "\u2024\u0701\u0702\ua60e\u2e31\u00b7\u2027\u22c5";

  private PathArgument() {
  }

  public static Path parse(String field, String raw) {
    if (raw == null || raw.isEmpty()) {
      throw bad(field, raw, "is required");
    }
    if (raw.length() > MAX_LENGTH) {
      throw bad(field, null, "is longer than " + MAX_LENGTH + " characters");
    }
    for (int i = 0; i < raw.length(); i++) {
      char c = raw.charAt(i);
      if (c == 0) {
        throw bad(field, null, "contains a NUL character at position " + i);
      }
      if (c < 0x20 || c == 0x7f || (c >= 0x80 && c < 0xa0)) {
        throw bad(field, null, "contains the control character " + code(c) + " at position " + i);
      }
      if (Character.getType(c) == Character.FORMAT || Character.getType(c) == Character.SURROGATE && !validPair(raw, i)) {
        throw bad(field, null, "contains the invisible character " + code(c) + " at position " + i);
      }
      if (LOOK_ALIKES.indexOf(c) >= 0 || c > 0x7f && !Normalizer.isNormalized(String.valueOf(c), Normalizer.Form.NFKC)) {
        throw bad(field, null, "contains " + code(c) + ", which looks like another character (a slash, a dot…): "
          + "spell the path with plain characters");
      }
    }
    // only now, with every character known to be visible, may the path be echoed back
    if (raw.indexOf('\\') >= 0) {
      throw bad(field, raw, "contains a backslash: paths on this node are separated by '/'");
    }
    if (!Normalizer.isNormalized(raw, Normalizer.Form.NFKC)) {
      throw bad(field, null, "is not in Unicode normal form NFKC: spell the path with plain characters");
    }
    if (!raw.startsWith("/")) {
      throw bad(field, raw, "must be an absolute path starting with '/'; relative paths are refused");
    }
    if (raw.length() > 1 && raw.endsWith("/")) {
      throw bad(field, raw, "must not end with '/'");
    }
    if (raw.contains("//")) {
      throw bad(field, raw, "contains an empty segment ('//')");
    }
    for (String segment : raw.substring(1).split("/")) {
      if (segment.equals(".") || segment.equals("..")) {
        throw bad(field, raw, "contains a '" + segment + "' segment; name the place itself, without '.' or '..'");
      }
      if (segment.length() > MAX_SEGMENT) {
        throw bad(field, null, "has a segment longer than " + MAX_SEGMENT + " characters");
      }
    }
    try {
      Path p = Path.of(raw);
      if (!p.isAbsolute() || !p.normalize().equals(p)) {
        throw bad(field, raw, "is not a plain absolute path");
      }
      return p;
    } catch (InvalidPathException e) {
      throw bad(field, null, "is not a valid path: " + e.getReason());
    }
  }

  private static boolean validPair(String s, int i) {
    char c = s.charAt(i);
    if (Character.isHighSurrogate(c)) {
      return i + 1 < s.length() && Character.isLowSurrogate(s.charAt(i + 1));
    }
    return i > 0 && Character.isHighSurrogate(s.charAt(i - 1));
  }

  private static String code(char c) {
    return String.format(Locale.ROOT, "U+%04X", (int) c);
  }

  private static RuntimeException bad(String field, String shown, String why) {
    // a path with hidden characters is not echoed: the reader could not see what is wrong with it anyway
    return FailureCode.BAD_REQUEST.exception(field + (shown == null ? "" : " '" + shown + "'") + " " + why);
  }
}
