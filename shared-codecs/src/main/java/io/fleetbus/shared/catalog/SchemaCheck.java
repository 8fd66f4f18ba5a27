package io.fleetbus.shared.catalog;

import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.json.schema.Draft;
import io.vertx.json.schema.JsonSchema;
import io.vertx.json.schema.JsonSchemaOptions;
import io.vertx.json.schema.OutputFormat;
import io.vertx.json.schema.OutputUnit;
import io.vertx.json.schema.Validator;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.TreeSet;
import java.util.regex.Pattern;
import java.util.stream.Collectors;

/**
 * One JSON Schema (2020-12) that a JSON object must match, with refusals a person can act on: every problem names
 * its field — missing ones (also those an {@code anyOf} of {@code required} asks for), unknown ones, and the
 * field, rule and value of anything else.
 * The schema given stays as it is: the validator works on a copy, because vertx-json-schema annotates the object
 * it compiles ({@code __absolute_uri__}), and the pristine schema is what gets published.
 */
public final class SchemaCheck {
  private static final JsonSchemaOptions OPTIONS = new JsonSchemaOptions().setDraft(Draft.DRAFT202012)
    .setBaseUri("https://fleetbus.io/schemas/").setOutputFormat(OutputFormat.Basic);
  /** Keywords whose failure only says that something below them failed: the rule below explains it. */
  private static final Set<String> WRAPPERS = Set.of("properties", "items", "prefixItems", "allOf", "$ref",
    "dependentSchemas", "then", "else", "if", "patternProperties", "propertyNames", "unevaluatedProperties",
    "unevaluatedItems", "$dynamicRef");
  private static final int MAX_PROBLEMS = 6;

  private final String subject;
  private final JsonObject schema;
  private final Validator validator;

  /**
   * @param subject what the object is, for the messages ("job_launch", "the enrollment body")
   * @param schema  an object schema; it is not modified
   */
  public SchemaCheck(String subject, JsonObject schema) {
    this.subject = subject;
    this.schema = schema;
    this.validator = Validator.create(JsonSchema.of(schema.copy()), OPTIONS);
  }

  public JsonObject schema() {
    return schema;
  }

  /** Throws a 400 {@link io.fleetbus.shared.bus.FleetException} "{prefix}: {problems}" when {@code input} does not match. */
  public void check(JsonObject input, String prefix) {
    List<String> problems = problems(input);
    if (!problems.isEmpty()) {
      throw FailureCode.BAD_REQUEST.exception(prefix + ": " + String.join("; ", problems));
    }
  }

  /** What is wrong with {@code input}, each naming its field; empty when it matches. */
  public List<String> problems(JsonObject input) {
    OutputUnit out = validator.validate(input);
    if (Boolean.TRUE.equals(out.getValid())) {
      return List.of();
    }
    List<OutputUnit> errors = out.getErrors() == null ? List.of() : out.getErrors();
    Set<String> missing = new LinkedHashSet<>();
    Map<String, Set<String>> unknown = new LinkedHashMap<>();
    Map<String, List<List<String>>> alternatives = new LinkedHashMap<>();
    Set<String> other = new LinkedHashSet<>();
    Map<String, List<BranchRule>> branchRules = new LinkedHashMap<>();
    Set<String> anyOfExplained = new TreeSet<>();
    for (OutputUnit e : errors) {
      List<String> kw = segments(e.getKeywordLocation());
      List<String> at = segments(e.getInstanceLocation());
      String keyword = kw.isEmpty() ? "" : kw.get(kw.size() - 1);
      JsonObject node = schemaAt(kw.subList(0, Math.max(0, kw.size() - 1)));
      Object value = instanceAt(input, at);
      int anyOf = lastIndexOfAny(kw, "anyOf", "oneOf");
      if ("required".equals(keyword) && node != null && value instanceof JsonObject obj) {
        List<String> absent = strings(node.getJsonArray("required")).stream().filter(f -> !obj.containsKey(f)).toList();
        if (anyOf >= 0 && anyOf == kw.size() - 3) {
          // one branch of "give this or that": gathered per anyOf, explained once below
          alternatives.computeIfAbsent(String.join("/", kw.subList(0, anyOf + 1)) + "@" + String.join("/", at),
            k -> new ArrayList<>()).add(absent.stream().map(f -> field(at, f)).toList());
        } else {
          absent.forEach(f -> missing.add(field(at, f)));
        }
      } else if ("additionalProperties".equals(keyword) && node != null) {
        // vertx-json-schema also reports declared properties whose value failed here: the unknown ones are computed
        if (Boolean.FALSE.equals(node.getValue("additionalProperties")) && at.size() >= 1
          && instanceAt(input, at.subList(0, at.size() - 1)) instanceof JsonObject parent) {
          List<String> owner = at.subList(0, at.size() - 1);
          JsonObject props = node.getJsonObject("properties", new JsonObject());
          parent.fieldNames().stream().filter(f -> !props.containsKey(f) && !matchesPattern(node, f))
            .forEach(f -> unknown.computeIfAbsent(path(owner), k -> new TreeSet<>()).add(f));
        }
      } else if ("anyOf".equals(keyword) || "oneOf".equals(keyword)) {
        anyOfExplained.add(String.join("/", kw) + "@" + String.join("/", at));
      } else if (keyword.isEmpty() && e.getError() != null) {
        other.add(withField(at, e.getError()));
      } else if (!WRAPPERS.contains(keyword)) {
        Object rule = node == null ? null : node.getValue(keyword);
        if (anyOf >= 0) {
          // a rule of one form among several: explained below with the other forms' rules
          branchRules.computeIfAbsent(String.join("/", kw.subList(0, anyOf + 1)), k -> new ArrayList<>())
            .add(new BranchRule(keyword, rule, value, at, e.getError()));
        } else {
          other.add(explain(keyword, rule, value, at, e.getError()));
        }
      }
    }
    for (List<BranchRule> rules : branchRules.values()) {
      other.addAll(explainForms(rules));
    }
    List<String> problems = new ArrayList<>();
    if (!missing.isEmpty()) {
      problems.add("missing required field" + (missing.size() == 1 ? " " : "s ") + quoted(missing));
    }
    for (List<List<String>> branches : alternatives.values()) {
      boolean oneEach = branches.stream().allMatch(b -> b.size() == 1);
      problems.add("missing required field: give " + branches.stream()
        .map(b -> oneEach ? "'" + b.get(0) + "'" : "all of " + quoted(b)).collect(Collectors.joining(" or ")));
    }
    unknown.forEach((owner, names) -> {
      JsonObject node = objectSchemaFor(owner.isEmpty() ? List.of() : List.of(owner.split("\\.")));
      Set<String> known = node == null ? Set.of() : new TreeSet<>(node.getJsonObject("properties", new JsonObject()).fieldNames());
      String takes = node == null ? "" : " (" + (owner.isEmpty() ? subject : "'" + owner + "'") + " takes "
        + (known.isEmpty() ? "no fields" : known) + ")";
      problems.add("unknown field" + (names.size() == 1 ? " " : "s ")
        + quoted(names.stream().map(n -> owner.isEmpty() ? n : owner + "." + n).toList()) + takes);
    });
    problems.addAll(other);
    if (problems.isEmpty() && !anyOfExplained.isEmpty()) {
      problems.add("the arguments match none of the forms " + subject + " accepts");
    }
    if (problems.isEmpty()) {
      problems.add(out.getError() == null ? "does not match the schema" : out.getError());
    }
    return problems.size() > MAX_PROBLEMS ? problems.subList(0, MAX_PROBLEMS) : problems;
  }

  /** A rule that failed inside one form of an {@code anyOf}/{@code oneOf}. */
  private record BranchRule(String keyword, Object rule, Object value, List<String> at, String error) {
  }

  /**
   * The failed rules of a field that may take several forms: forms of the value's own type explain the problem
   * (an integer over its maximum); when no form has the value's type, one line lists the types it may have.
   */
  private static List<String> explainForms(List<BranchRule> rules) {
    List<BranchRule> ofItsType = rules.stream().filter(r -> !"type".equals(r.keyword())).toList();
    if (!ofItsType.isEmpty()) {
      return ofItsType.stream().map(r -> explain(r.keyword(), r.rule(), r.value(), r.at(), r.error())).toList();
    }
    BranchRule first = rules.get(0);
    String types = rules.stream().map(r -> typeWords(r.rule())).distinct().collect(Collectors.joining(" or "));
    return List.of(withField(first.at(), "must be " + types + ", not " + article(typeOf(first.value()))));
  }

  /** One failed rule in words: the field, what it must be, and what it is. */
  private static String explain(String keyword, Object rule, Object value, List<String> at, String fallback) {
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

  private static String withField(List<String> at, String what) {
    return at.isEmpty() ? what : "field '" + path(at) + "' " + what;
  }

  private static String typeWords(Object rule) {
    if (rule instanceof JsonArray a) {
      return strings(a).stream().map(SchemaCheck::article).collect(Collectors.joining(" or "));
    }
    return article(String.valueOf(rule));
  }

  private static String article(String type) {
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

  private static String shown(Object v) {
    String s = v instanceof String str ? new JsonArray().add(str).encode() : String.valueOf(v);
    s = v instanceof String ? s.substring(1, s.length() - 1) : s;
    return s.length() > 60 ? s.substring(0, 57) + "…" : s;
  }

  private static String quoted(java.util.Collection<String> names) {
    return names.stream().map(n -> "'" + n + "'").collect(Collectors.joining(", "));
  }

  /** A field's name as a person writes it: {@code edits[0].target_content}. */
  private static String field(List<String> at, String name) {
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

  private static boolean matchesPattern(JsonObject node, String field) {
    JsonObject patterns = node.getJsonObject("patternProperties");
    return patterns != null && patterns.fieldNames().stream().anyMatch(p -> Pattern.compile(p).matcher(field).find());
  }

  /** The object schema that describes the instance at {@code owner} (a dotted path), following properties/items. */
  private JsonObject objectSchemaFor(List<String> owner) {
    JsonObject node = schema;
    for (String raw : owner) {
      if (node == null) {
        return null;
      }
      String seg = raw.replaceAll("\\[\\d+]$", "");
      JsonObject props = node.getJsonObject("properties");
      node = props == null ? null : props.getJsonObject(seg);
      if (node != null && !seg.equals(raw)) {
        node = node.getJsonObject("items");
      }
    }
    return node;
  }

  private JsonObject schemaAt(List<String> pointer) {
    return instanceAt(schema, pointer) instanceof JsonObject o ? o : null;
  }

  /** The value at {@code pointer} below {@code root} (a schema or an instance), or null. */
  private static Object instanceAt(Object root, List<String> pointer) {
    Object node = root;
    for (String seg : pointer) {
      if (node instanceof JsonObject o) {
        node = o.getValue(seg);
      } else if (node instanceof JsonArray a && isIndex(seg, a.size())) {
        node = a.getValue(Integer.parseInt(seg));
      } else {
        return null;
      }
    }
    return node;
  }

  private static boolean isIndex(String seg, int size) {
    return !seg.isEmpty() && seg.length() < 10 && seg.chars().allMatch(Character::isDigit) && Integer.parseInt(seg) < size;
  }

  private static int lastIndexOfAny(List<String> kw, String a, String b) {
    for (int i = kw.size() - 1; i >= 0; i--) {
      if (a.equals(kw.get(i)) || b.equals(kw.get(i))) {
        return i;
      }
    }
    return -1;
  }

  /** A JSON pointer ({@code #/a/b~1c}) as its unescaped segments. */
  static List<String> segments(String pointer) {
    if (pointer == null) {
      return List.of();
    }
    String p = pointer.startsWith("#") ? pointer.substring(1) : pointer;
    if (p.isEmpty() || "/".equals(p)) {
      return List.of();
    }
    List<String> out = new ArrayList<>();
    for (String s : (p.startsWith("/") ? p.substring(1) : p).split("/", -1)) {
      out.add(java.net.URLDecoder.decode(s.replace("+", "%2B"), java.nio.charset.StandardCharsets.UTF_8)
        .replace("~1", "/").replace("~0", "~"));
    }
    return out;
  }

  private static List<String> strings(JsonArray a) {
    List<String> out = new ArrayList<>();
    if (a != null) {
      a.forEach(v -> out.add(String.valueOf(v)));
    }
    return out;
  }
}
