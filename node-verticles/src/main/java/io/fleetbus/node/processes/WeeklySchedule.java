package io.fleetbus.node.processes;

import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.DayOfWeek;
import java.time.LocalTime;
import java.time.ZonedDateTime;
import java.util.ArrayList;
import java.util.EnumSet;
import java.util.List;
import java.util.Set;

/**
 * Blocks of week days with time ranges, read in the node's time zone: {@code [{days: [mon, tue],
 * ranges: [{start: "09:00", stop: "18:00"}]}]}. A range whose stop is not after its start runs past
 * midnight into the next day; {@code "24:00"} means the end of the day.
 */
public final class WeeklySchedule {
  private static final List<String> DAY_NAMES = List.of("mon", "tue", "wed", "thu", "fri", "sat", "sun");

  private record Range(LocalTime start, LocalTime stop, boolean endOfDay) {
    boolean crossesMidnight() {
      return !endOfDay && !stop.isAfter(start);
    }
  }

  private record Block(Set<DayOfWeek> days, List<Range> ranges) {
  }

  private final List<Block> blocks;
  private final JsonArray source;

  private WeeklySchedule(List<Block> blocks, JsonArray source) {
    this.blocks = blocks;
    this.source = source;
  }

  public static final WeeklySchedule EMPTY = new WeeklySchedule(List.of(), new JsonArray());

  /** Parses the schedule blocks of a tool call; a 400 names what is wrong. */
  public static WeeklySchedule parse(JsonArray json) {
    if (json == null || json.isEmpty()) {
      return EMPTY;
    }
    List<Block> blocks = new ArrayList<>();
    for (int i = 0; i < json.size(); i++) {
      JsonObject b = json.getJsonObject(i);
      Set<DayOfWeek> days = EnumSet.noneOf(DayOfWeek.class);
      for (Object d : b.getJsonArray("days", new JsonArray())) {
        int index = DAY_NAMES.indexOf(String.valueOf(d));
        if (index < 0) {
          throw FailureCode.BAD_REQUEST.exception("schedules[" + i + "].days: '" + d + "' is not one of " + DAY_NAMES);
        }
        days.add(DayOfWeek.of(index + 1));
      }
      List<Range> ranges = new ArrayList<>();
      JsonArray rs = b.getJsonArray("ranges", new JsonArray());
      for (int j = 0; j < rs.size(); j++) {
        JsonObject r = rs.getJsonObject(j);
        String where = "schedules[" + i + "].ranges[" + j + "]";
        String stop = r.getString("stop");
        ranges.add(new Range(time(r.getString("start"), where + ".start"),
          "24:00".equals(stop) ? LocalTime.MIDNIGHT : time(stop, where + ".stop"), "24:00".equals(stop)));
      }
      if (days.isEmpty() || ranges.isEmpty()) {
        throw FailureCode.BAD_REQUEST.exception("schedules[" + i + "] needs at least one day and one time range");
      }
      blocks.add(new Block(days, ranges));
    }
    return new WeeklySchedule(List.copyOf(blocks), json.copy());
  }

  private static LocalTime time(String text, String where) {
    try {
      return LocalTime.parse(text);
    } catch (RuntimeException e) {
      throw FailureCode.BAD_REQUEST.exception(where + ": '" + text + "' is not a time of day such as 09:30");
    }
  }

  public boolean isEmpty() {
    return blocks.isEmpty();
  }

  /** Whether {@code t} (already in the node's zone) falls inside a time range. */
  public boolean isActive(ZonedDateTime t) {
    DayOfWeek today = t.getDayOfWeek();
    DayOfWeek yesterday = today.minus(1);
    LocalTime now = t.toLocalTime();
    for (Block b : blocks) {
      for (Range r : b.ranges()) {
        if (r.crossesMidnight()) {
          boolean lateToday = b.days().contains(today) && !now.isBefore(r.start());
          if (lateToday || b.days().contains(yesterday) && now.isBefore(r.stop())) {
            return true;
          }
        } else if (b.days().contains(today) && !now.isBefore(r.start()) && (r.endOfDay() || now.isBefore(r.stop()))) {
          return true;
        }
      }
    }
    return false;
  }

  public JsonArray toJson() {
    return source.copy();
  }
}
