package io.fleetbus.shared.catalog;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.stream.Collectors;

/** How {@link SchemaCheck} words a failed rule: the field as a person writes it, what it must be, and what it is. */
final class SchemaWords {
  private SchemaWords() {
  }

  /** A rule that failed inside one form of an {@code anyOf}/{@code oneOf}. */
  record BranchRule(String keyword, Object rule, Object value, List<String> at, String error) {
  }

  /**
   * The failed rules of a field that may take several forms: forms of the value's own type explain the problem
   * (an integer over its maximum); when no form has the value's type, one line lists the types it may have.
   */
  static List<String> explainForms(List<BranchRule> rules) {
    List<BranchRule> ofItsType = rules.stream().filter(r -> !"type".equals(r.keyword())).toList();
    if (!ofItsType.isEmpty()) {
      return ofItsType.stream().map(r -> explain(r.keyword(), r.rule(), r.value(), r.at(), r.error())).toList();
    }
    BranchRule first = rules.get(0);
    String types = rules.stream().map(r -> typeWords(r.rule())).distinct().collect(Collectors.joining(" or "));
    return List.of(withField(first.at(), "must be " + types + ", not " + article(typeOf(first.value()))));
  }

  /** One failed rule in words: the field, what it must be, and what it is. */
  static String explain(String keyword, Object rule, Object value, List<String> at, String fallback) {
    String what = switch (keyword) {
      case "type" -> "must be " + typeWords(rule) + ", not " + article(typeOf(value));
      case "enum" -> "must be one of " + (rule instanceof JsonArray a ? a.encode() : rule) + ", not " + shown(value);
      case "const" -> "must be " + shown(rule) + ", not " + shown(value);
      case "minimum" -> "must be at least " + rule + ", not " + shown(value);
      case "maximum" -> "must be at most " + rule + ", not " + shown(value);
      case "exclusiveMinimum" -> "must be more than " + rule + ", not " + shown(value);
      case "exclusiveMaximum" -> "must be less than " + rule + ", not " + shown(value);
      case "multipleOf" -> "must be a multiple of " + rule + ", not " + shown(value);
      case "minLength" -> "must be at least " + rule + " character(s) long";
      case "maxLength" -> "must be at most " + rule + " characters long";
      case "pattern" -> "must match the pattern " + rule;
      case "format" -> "must be a valid " + rule;
      case "minItems" -> "must have at least " + rule + " item(s)";
      case "maxItems" -> "must have at most " + rule + " items";
      case "uniqueItems" -> "must not repeat an item";
      case "minProperties" -> "must have at least " + rule + " entr" + (Integer.valueOf(1).equals(rule) ? "y" : "ies");
      case "maxProperties" -> "must have at most " + rule + " entries";
      case "contains", "minContains", "maxContains" -> "does not hold the items it must";
      case "not" -> "has a value that is not allowed";
      default -> fallback == null ? "breaks the rule '" + keyword + "'" : fallback;
    };
    return withField(at, what);
  }

  static String withField(List<String> at, String what) {
    return at.isEmpty() ? what : "field '" + path(at) + "' " + what;
  }

  static String typeWords(Object rule) {
    if (rule instanceof JsonArray a) {
      return strings(a).stream().map(SchemaWords::article).collect(Collectors.joining(" or "));
    }
    return article(String.valueOf(rule));
  }

  static String article(String type) {
    return switch (type) {
      case "integer" -> "an integer";
      case "object" -> "an object";
      case "array" -> "an array";
      case "null" -> "null";
      default -> "a " + type;
    };
  }

  static String typeOf(Object v) {
    if (v == null) {
      return "null";
    }
    if (v instanceof JsonObject || v instanceof Map) {
      return "object";
    }
    if (v instanceof JsonArray || v instanceof List) {
      return "array";
    }
    if (v instanceof String) {
      return "string";
    }
    if (v instanceof Boolean) {
      return "boolean";
    }
    if (v instanceof Integer || v instanceof Long || v instanceof Short || v instanceof Byte
      || v instanceof java.math.BigInteger) {
      return "integer";
    }
    return "number";
  }

  static String shown(Object v) {
    String s = v instanceof String str ? new JsonArray().add(str).encode() : String.valueOf(v);
    s = v instanceof String ? s.substring(1, s.length() - 1) : s;
    return s.length() > 60 ? s.substring(0, 57) + "…" : s;
  }

  static String quoted(java.util.Collection<String> names) {
    return names.stream().map(n -> "'" + n + "'").collect(Collectors.joining(", "));
  }

  /** A field's name as a person writes it: {@code edits[0].target_content}. */
  static String field(List<String> at, String name) {
    return at.isEmpty() ? name : path(at) + "." + name;
  }

  static String path(List<String> at) {
    StringBuilder sb = new StringBuilder();
    for (String s : at) {
      if (s.chars().allMatch(Character::isDigit) && !s.isEmpty() && sb.length() > 0) {
        sb.append('[').append(s).append(']');
      } else {
        sb.append(sb.length() == 0 ? "" : ".").append(s);
      }
    }
    return sb.toString();
  }

  static List<String> strings(JsonArray a) {
    List<String> out = new ArrayList<>();
    if (a != null) {
      a.forEach(v -> out.add(String.valueOf(v)));
    }
    return out;
  }
}
