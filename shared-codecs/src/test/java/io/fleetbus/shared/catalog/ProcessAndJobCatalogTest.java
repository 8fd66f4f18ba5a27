package io.fleetbus.shared.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.shared.bus.FleetException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

/** The managed-process and job tools: tiers, seed aliases, defaults and the seed's loose types. */
class ProcessAndJobCatalogTest {
  private final ToolCatalog catalog = ToolCatalog.load();

  @Test
  void tiersFollowTheCatalogue() {
    assertEquals(1, catalog.require("get_process_list").tier());
    for (String t : new String[] {"add_process", "update_process", "delete_process", "start_process", "kill_process",
      "restart_process", "set_launch_mode", "job_status", "job_list", "job_logs", "job_wait", "job_cancel"}) {
      assertEquals(2, catalog.require(t).tier(), t);
    }
    assertEquals(3, catalog.require("job_launch").tier());
    assertEquals(3, catalog.require("job_remove").tier());
  }

  @Test
  void seedNamesResolveToTheJobTools() {
    for (String[] pair : new String[][] {{"aegis.task.execute", "job_launch"}, {"cortex-run.launch", "job_launch"},
      {"aegis.task.status", "job_status"}, {"aegis.task.list", "job_list"}, {"aegis.task.logs", "job_logs"},
      {"aegis.task.wait", "job_wait"}, {"aegis.task.cancel", "job_cancel"}, {"cortex-run.cancel", "job_cancel"},
      {"aegis.task.remove", "job_remove"}}) {
      assertEquals(pair[1], catalog.require(pair[0]).name(), pair[0]);
    }
  }

  @Test
  void addProcessFillsDefaultsAndTakesTheSeedsStringCounts() {
    JsonObject args = catalog.validate(catalog.require("add_process"), new JsonObject().put("name", "web")
      .put("exe_path", "/usr/bin/python3").put("relaunch_attempts", "3").put("time_delay", "5"));
    assertEquals("off", args.getString("launch_mode"));
    assertEquals("3", args.getString("relaunch_attempts"));
    assertEquals(10, args.getInteger("time_to_init"));
    assertThrows(FleetException.class, () -> catalog.validate(catalog.require("add_process"),
      new JsonObject().put("name", "web").put("exe_path", "/x").put("relaunch_attempts", "three")));
    assertThrows(FleetException.class, () -> catalog.validate(catalog.require("add_process"),
      new JsonObject().put("name", "../etc").put("exe_path", "/x")));
  }

  @Test
  void updateProcessHasNoDefaultsSoOnlyGivenFieldsChange() {
    JsonObject args = catalog.validate(catalog.require("update_process"), new JsonObject().put("process_name", "web"));
    assertEquals(1, args.size(), args.encode());
  }

  @Test
  void schedulesAreCheckedField() {
    ToolSpec spec = catalog.require("set_launch_mode");
    JsonArray good = new JsonArray().add(new JsonObject().put("days", new JsonArray().add("mon").add("fri"))
      .put("ranges", new JsonArray().add(new JsonObject().put("start", "22:00").put("stop", "24:00"))));
    catalog.validate(spec, new JsonObject().put("process_name", "web").put("mode", "scheduled").put("schedules", good));
    JsonArray badTime = new JsonArray().add(new JsonObject().put("days", new JsonArray().add("mon"))
      .put("ranges", new JsonArray().add(new JsonObject().put("start", "25:00").put("stop", "26:00"))));
    FleetException e = assertThrows(FleetException.class, () -> catalog.validate(spec,
      new JsonObject().put("process_name", "web").put("mode", "scheduled").put("schedules", badTime)));
    assertTrue(e.getMessage().contains("schedules"), e.getMessage());
    assertThrows(FleetException.class, () -> catalog.validate(spec, new JsonObject().put("process_name", "web")
      .put("mode", "sometimes")));
  }

  @Test
  void jobToolsTakeJobIdOrExecutionIdButNotNeither() {
    ToolSpec wait = catalog.require("job_wait");
    JsonObject args = catalog.validate(wait, new JsonObject().put("execution_id", "abc-1"));
    assertEquals(300, args.getInteger("timeout_seconds"));
    assertEquals(10, args.getInteger("poll_interval_seconds"));
    assertThrows(FleetException.class, () -> catalog.validate(wait, new JsonObject()));
    assertThrows(FleetException.class, () -> catalog.validate(catalog.require("job_logs"),
      new JsonObject().put("job_id", "x").put("limit", 1001)));
    assertThrows(FleetException.class, () -> catalog.validate(catalog.require("job_launch"), new JsonObject()));
    JsonObject launch = catalog.validate(catalog.require("job_launch"), new JsonObject().put("command", "make"));
    assertEquals(600, launch.getInteger("stall_timeout_seconds"));
    assertFalse(catalog.require("job_status").annotations().getBoolean("destructiveHint"));
  }
}
