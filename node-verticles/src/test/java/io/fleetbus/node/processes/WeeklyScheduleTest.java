package io.fleetbus.node.processes;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.vertx.core.json.JsonArray;
import java.time.ZoneId;
import java.time.ZonedDateTime;
import org.junit.jupiter.api.Test;

class WeeklyScheduleTest {
  private static final ZoneId ZONE = ZoneId.of("Europe/Berlin");

  /** 2026-11-23 is a Monday. */
  private static ZonedDateTime at(int day, String time) {
    return ZonedDateTime.of(java.time.LocalDate.of(2026, 11, 22 + day), java.time.LocalTime.parse(time), ZONE);
  }

  private static WeeklySchedule schedule(String json) {
    return WeeklySchedule.parse(new JsonArray(json));
  }

  @Test
  void rangeIncludesItsStartAndExcludesItsStop() {
    WeeklySchedule s = schedule("[{\"days\": [\"mon\", \"wed\"], \"ranges\": [{\"start\": \"09:00\", \"stop\": \"18:00\"}]}]");
    assertFalse(s.isActive(at(1, "08:59:59")));
    assertTrue(s.isActive(at(1, "09:00")));
    assertTrue(s.isActive(at(1, "17:59:59")));
    assertFalse(s.isActive(at(1, "18:00")));
    assertFalse(s.isActive(at(2, "12:00")), "tuesday is not listed");
    assertTrue(s.isActive(at(3, "12:00")));
  }

  @Test
  void rangeEndingAtOrBeforeItsStartRunsPastMidnightIntoTheNextDay() {
    WeeklySchedule s = schedule("[{\"days\": [\"fri\"], \"ranges\": [{\"start\": \"22:00\", \"stop\": \"06:00\"}]}]");
    assertTrue(s.isActive(at(5, "23:30")));
    assertTrue(s.isActive(at(6, "05:59")), "saturday morning belongs to friday's range");
    assertFalse(s.isActive(at(6, "06:00")));
    assertFalse(s.isActive(at(5, "05:00")), "thursday is not listed");
  }

  @Test
  void twentyFourHundredIsTheEndOfTheDay() {
    WeeklySchedule s = schedule("[{\"days\": [\"sun\"], \"ranges\": [{\"start\": \"20:00\", \"stop\": \"24:00\"}]}]");
    assertTrue(s.isActive(at(7, "23:59:59")));
    assertFalse(s.isActive(at(8, "00:00")));
  }

  @Test
  void badDayOrTimeIs400NamingTheField() {
    FleetException e = assertThrows(FleetException.class,
      () -> schedule("[{\"days\": [\"mon\"], \"ranges\": [{\"start\": \"9am\", \"stop\": \"18:00\"}]}]"));
    assertEquals(FailureCode.BAD_REQUEST, e.code());
    assertTrue(e.getMessage().contains("schedules[0].ranges[0].start"), e.getMessage());
    assertThrows(FleetException.class,
      () -> schedule("[{\"days\": [], \"ranges\": [{\"start\": \"09:00\", \"stop\": \"10:00\"}]}]"));
  }
}
