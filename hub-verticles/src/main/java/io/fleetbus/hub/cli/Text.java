package io.fleetbus.hub.cli;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;
import java.time.Instant;
import java.time.ZoneId;
import java.time.format.DateTimeFormatter;
import java.util.ArrayList;
import java.util.Arrays;
import java.util.List;
import java.util.Locale;
import java.util.Map;
import java.util.stream.Collectors;

/** What the CLI prints for people: aligned tables, times with how long ago, JSON read as key/value lines. */
final class Text {
  private static final DateTimeFormatter WHEN = DateTimeFormatter.ofPattern("yyyy-MM-dd HH:mm:ss", Locale.ROOT);
  /** A cell wider than this is cut with "…" (the full text is one --json away). */
  static final int CELL = 60;

  private final ZoneId zone;
  private final long now;

  Text(ZoneId zone, long now) {
    this.zone = zone;
    this.now = now;
  }

  static Text local() {
    return new Text(ZoneId.systemDefault(), System.currentTimeMillis());
  }

  /** "2026-11-25 18:03:12 (4 min ago)" in the local zone; "—" for no time. */
  String when(Long epochMs) {
    if (epochMs == null || epochMs <= 0) {
      return "—";
    }
    return stamp(epochMs) + " (" + relative(epochMs) + ")";
  }

  /** "2026-11-25 18:03:12" in the local zone. */
  String stamp(long epochMs) {
    return WHEN.format(Instant.ofEpochMilli(epochMs).atZone(zone));
  }

  /** "just now", "42 s ago", "4 min ago", "3 h ago", "2 d ago", or "in 4 min" for a moment ahead. */
  String relative(long epochMs) {
    long s = Math.round((now - epochMs) / 1000.0);
    if (Math.abs(s) < 5) {
      return "just now";
    }
    String span = span(Math.abs(s));
    return s > 0 ? span + " ago" : "in " + span;
  }

  private static String span(long s) {
    if (s < 90) {
      return s + " s";
    }
    if (s < 90 * 60) {
      return Math.round(s / 60.0) + " min";
    }
    if (s < 36 * 3600) {
      return Math.round(s / 3600.0) + " h";
    }
    return Math.round(s / 86400.0) + " d";
  }

  /** An uptime: "3 d 4 h", "1 h 12 min", "40 s". */
  static String uptime(long seconds) {
    long d = seconds / 86400;
    long h = seconds % 86400 / 3600;
    long m = seconds % 3600 / 60;
    return d > 0 ? d + " d " + h + " h" : h > 0 ? h + " h " + m + " min" : m > 0 ? m + " min" : seconds + " s";
  }

  static String gb(Number mb) {
    return mb == null ? "—" : String.format(Locale.ROOT, "%.1f GB", mb.doubleValue() / 1024);
  }

  static String labels(JsonObject labels) {
    if (labels == null || labels.isEmpty()) {
      return "—";
    }
    return labels.stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(" "));
  }

  static String orDash(Object value) {
    return value == null || value.toString().isEmpty() ? "—" : value.toString();
  }

  /** The first line of a text, cut to {@code max} characters. */
  static String cut(String text, int max) {
    if (text == null) {
      return "";
    }
    String line = text.lines().findFirst().orElse("");
    boolean more = line.length() < text.strip().length();
    return line.length() > max ? line.substring(0, max - 1) + "…" : more ? line + " …" : line;
  }

  /** Columns sized to their widest cell; a header in capitals; no trailing blanks. */
  static final class Table {
    private final List<String> header;
    private final List<List<String>> rows = new ArrayList<>();

    Table(String... columns) {
      header = Arrays.stream(columns).map(c -> c.toUpperCase(Locale.ROOT)).toList();
    }

    Table row(Object... cells) {
      rows.add(Arrays.stream(cells).map(c -> cut(c == null ? "" : c.toString(), CELL)).toList());
      return this;
    }

    boolean isEmpty() {
      return rows.isEmpty();
    }

    void print(PrintWriter out) {
      int[] width = new int[header.size()];
      for (List<String> r : concat()) {
        for (int i = 0; i < width.length; i++) {
          width[i] = Math.max(width[i], r.get(i).length());
        }
      }
      for (List<String> r : concat()) {
        StringBuilder line = new StringBuilder();
        for (int i = 0; i < width.length; i++) {
          line.append(i == width.length - 1 ? r.get(i) : pad(r.get(i), width[i] + 2));
        }
        out.println(line.toString().stripTrailing());
      }
    }

    private List<List<String>> concat() {
      List<List<String>> all = new ArrayList<>(rows.size() + 1);
      all.add(header);
      all.addAll(rows);
      return all;
    }

    private static String pad(String s, int width) {
      return s + " ".repeat(Math.max(0, width - s.length()));
    }
  }

  /** Aligned "key  value" lines; a value of several lines goes on under the first. */
  static void fields(PrintWriter out, Map<String, ?> fields) {
    int width = fields.keySet().stream().mapToInt(String::length).max().orElse(0);
    String indent = "\n" + " ".repeat(width + 2);
    fields.forEach((k, v) -> out.println((k + " ".repeat(width - k.length()) + "  "
      + String.valueOf(v).replace("\n", indent)).stripTrailing()));
  }

  /**
   * Any JSON result for reading: values as "key  value" lines (nested keys joined with dots), lists of objects as
   * tables, then {@code stdout} and {@code stderr} as they are.
   */
  void data(PrintWriter out, Object data) {
    if (data instanceof JsonObject o) {
      List<String> streams = List.of("stdout", "stderr");
      Map<String, Object> flat = new java.util.LinkedHashMap<>();
      List<Map.Entry<String, JsonArray>> lists = new ArrayList<>();
      flatten("", o, flat, lists, streams);
      fields(out, flat);
      for (Map.Entry<String, JsonArray> list : lists) {
        out.println();
        out.println(list.getKey() + " (" + list.getValue().size() + ")");
        objects(list.getValue()).print(out);
      }
      for (String stream : streams) {
        if (o.getValue(stream) instanceof String s && !s.isEmpty()) {
          out.println("--- " + stream);
          out.print(s.endsWith("\n") ? s : s + "\n");
        }
      }
    } else if (data instanceof JsonArray a && !a.isEmpty() && a.stream().allMatch(JsonObject.class::isInstance)) {
      objects(a).print(out);
    } else if (data != null) {
      out.println(data instanceof JsonArray a ? a.encode() : data.toString());
    }
  }

  private void flatten(String prefix, JsonObject o, Map<String, Object> flat, List<Map.Entry<String, JsonArray>> lists,
                       List<String> skip) {
    for (Map.Entry<String, Object> e : o) {
      String key = prefix + e.getKey();
      if (prefix.isEmpty() && skip.contains(key) && e.getValue() instanceof String) {
        continue;
      }
      Object v = e.getValue();
      if (v instanceof JsonObject nested && !nested.isEmpty()) {
        flatten(key + ".", nested, flat, lists, skip);
      } else if (v instanceof JsonArray arr && !arr.isEmpty() && arr.stream().allMatch(JsonObject.class::isInstance)) {
        lists.add(Map.entry(key, arr));
      } else {
        flat.put(key, cell(v));
      }
    }
  }

  /** A list of objects as a table: one column per key (in first-seen order), nested values as compact JSON. */
  private Table objects(JsonArray list) {
    List<String> keys = new ArrayList<>();
    list.forEach(item -> ((JsonObject) item).fieldNames().stream().filter(k -> !keys.contains(k)).forEach(keys::add));
    Table t = new Table(keys.toArray(String[]::new));
    list.forEach(item -> t.row(keys.stream().map(k -> cell(((JsonObject) item).getValue(k))).toArray()));
    return t;
  }

  private static String cell(Object v) {
    if (v == null) {
      return "—";
    }
    if (v instanceof JsonArray arr) {
      return arr.isEmpty() ? "—" : arr.stream().map(x -> x instanceof JsonObject || x instanceof JsonArray ? compact(x) : String.valueOf(x))
        .collect(Collectors.joining(", "));
    }
    return v instanceof JsonObject ? compact(v) : v.toString();
  }

  private static String compact(Object json) {
    if (json instanceof JsonObject o && o.size() <= 3 && o.stream().noneMatch(e -> e.getValue() instanceof JsonObject
      || e.getValue() instanceof JsonArray)) {
      return o.stream().map(e -> e.getKey() + "=" + e.getValue()).collect(Collectors.joining(" "));
    }
    return json instanceof JsonObject o ? o.encode() : ((JsonArray) json).encode();
  }
}
