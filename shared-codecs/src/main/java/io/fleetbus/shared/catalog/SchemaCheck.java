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
    Map<String, List<SchemaWords.BranchRule>> branchRules = new LinkedHashMap<>();
    Set<String> anyOfExplained = new TreeSet<>();
    for (OutputUnit e : errors) {
      List<String> kw = segments(e.getKeywordLocation());
      List<String> at = segments(e.getInstanceLocation());
      String keyword = kw.isEmpty() ? "" : kw.get(kw.size() - 1);
      JsonObject node = schemaAt(kw.subList(0, Math.max(0, kw.size() - 1)));
      Object value = instanceAt(input, at);
      int anyOf = lastIndexOfAny(kw, "anyOf", "oneOf");
      if ("required".equals(keyword) && node != null && value instanceof JsonObject obj) {
        List<String> absent = SchemaWords.strings(node.getJsonArray("required")).stream()
          .filter(f -> !obj.containsKey(f)).toList();
        if (anyOf >= 0 && anyOf == kw.size() - 3) {
          // one branch of "give this or that": gathered per anyOf, explained once below
          alternatives.computeIfAbsent(String.join("/", kw.subList(0, anyOf + 1)) + "@" + String.join("/", at),
            k -> new ArrayList<>()).add(absent.stream().map(f -> SchemaWords.field(at, f)).toList());
        } else {
          absent.forEach(f -> missing.add(SchemaWords.field(at, f)));
        }
      } else if ("additionalProperties".equals(keyword) && node != null) {
        // vertx-json-schema also reports declared properties whose value failed here: the unknown ones are computed
        if (Boolean.FALSE.equals(node.getValue("additionalProperties")) && at.size() >= 1
          && instanceAt(input, at.subList(0, at.size() - 1)) instanceof JsonObject parent) {
          List<String> owner = at.subList(0, at.size() - 1);
          JsonObject props = node.getJsonObject("properties", new JsonObject());
          parent.fieldNames().stream().filter(f -> !props.containsKey(f) && !matchesPattern(node, f))
            .forEach(f -> unknown.computeIfAbsent(SchemaWords.path(owner), k -> new TreeSet<>()).add(f));
        }
      } else if ("anyOf".equals(keyword) || "oneOf".equals(keyword)) {
        anyOfExplained.add(String.join("/", kw) + "@" + String.join("/", at));
      } else if (keyword.isEmpty() && e.getError() != null) {
        other.add(SchemaWords.withField(at, e.getError()));
      } else if (!WRAPPERS.contains(keyword)) {
        Object rule = node == null ? null : node.getValue(keyword);
        if (anyOf >= 0) {
          // a rule of one form among several: explained below with the other forms' rules
          branchRules.computeIfAbsent(String.join("/", kw.subList(0, anyOf + 1)), k -> new ArrayList<>())
            .add(new SchemaWords.BranchRule(keyword, rule, value, at, e.getError()));
        } else {
          other.add(SchemaWords.explain(keyword, rule, value, at, e.getError()));
        }
      }
    }
    for (List<SchemaWords.BranchRule> rules : branchRules.values()) {
      other.addAll(SchemaWords.explainForms(rules));
    }
    List<String> problems = new ArrayList<>();
    if (!missing.isEmpty()) {
      problems.add("missing required field" + (missing.size() == 1 ? " " : "s ") + SchemaWords.quoted(missing));
    }
    for (List<List<String>> branches : alternatives.values()) {
      boolean oneEach = branches.stream().allMatch(b -> b.size() == 1);
      problems.add("missing required field: give " + branches.stream()
        .map(b -> oneEach ? "'" + b.get(0) + "'" : "all of " + SchemaWords.quoted(b))
        .collect(Collectors.joining(" or ")));
    }
    unknown.forEach((owner, names) -> {
      JsonObject node = objectSchemaFor(owner.isEmpty() ? List.of() : List.of(owner.split("\\.")));
      Set<String> known = node == null ? Set.of() : new TreeSet<>(node.getJsonObject("properties", new JsonObject()).fieldNames());
      String takes = node == null ? "" : " (" + (owner.isEmpty() ? subject : "'" + owner + "'") + " takes "
        + (known.isEmpty() ? "no fields" : known) + ")";
      problems.add("unknown field" + (names.size() == 1 ? " " : "s ")
        + SchemaWords.quoted(names.stream().map(n -> owner.isEmpty() ? n : owner + "." + n).toList()) + takes);
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
}
