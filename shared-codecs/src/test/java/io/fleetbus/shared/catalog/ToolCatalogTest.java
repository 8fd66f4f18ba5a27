package io.fleetbus.shared.catalog;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

class ToolCatalogTest {
  private final ToolCatalog catalog = ToolCatalog.load();

  @Test
  void everyToolHasTierSchemaAndDescription() {
    assertFalse(catalog.all().isEmpty());
    for (ToolSpec t : catalog.all()) {
      assertTrue(t.tier() >= 1 && t.tier() <= 3, t.name());
      assertTrue(t.description() != null && t.description().length() > 20, t.name());
      assertEquals("object", t.inputSchema().getString("type"), t.name());
      assertTrue(t.annotations().containsKey("readOnlyHint"), t.name());
    }
  }

  @Test
  void aliasResolvesToTheSameTool() {
    assertSame(catalog.require("run_command"), catalog.require("cmd.run"));
  }

  @Test
  void unknownToolIs404() {
    FleetException e = assertThrows(FleetException.class, () -> catalog.require("no_such_tool"));
    assertEquals(FailureCode.NOT_FOUND, e.code());
  }

  /**
   * Issue 19, item 10: a seed tool fleetbus does not offer is not "unknown": 400 (DESIGN.md has no 501) naming the
   * platform that has it, or saying it is planned; nothing of it enters the catalogue.
   */
  @Test
  void seedToolsFleetbusDoesNotOfferNameThePlatformThatHasThem() {
    FleetException windows = assertThrows(FleetException.class, () -> catalog.require("registry_operation"));
    assertEquals(FailureCode.BAD_REQUEST, windows.code());
    assertTrue(windows.getMessage().startsWith("`registry_operation` is not available on `linux` or `macos`: it runs on"
      + " windows only"), windows.getMessage());
    FleetException later = assertThrows(FleetException.class, () -> catalog.require("aegis.runtime.list"));
    assertEquals(FailureCode.BAD_REQUEST, later.code());
    assertTrue(later.getMessage().contains("not implemented in fleetbus yet"), later.getMessage());
    assertTrue(catalog.find("registry_operation").isEmpty(), "not a tool of the catalogue");
    assertTrue(catalog.all().stream().noneMatch(t -> t.name().equals("run_python")));
  }

  @Test
  void outOfRangeValueNamesTheFieldAndTheRule() {
    FleetException e = assertThrows(FleetException.class,
      () -> catalog.validate(catalog.require("get_running_processes"), new JsonObject().put("limit", 500)));
    assertEquals(FailureCode.BAD_REQUEST, e.code());
    assertTrue(e.getMessage().contains("'limit'"), e.getMessage());
    assertTrue(e.getMessage().contains("200"), e.getMessage());
  }

  @Test
  void wrongTypeIsRefused() {
    FleetException e = assertThrows(FleetException.class,
      () -> catalog.validate(catalog.require("get_running_processes"), new JsonObject().put("limit", "ten")));
    assertTrue(e.getMessage().contains("'limit'"), e.getMessage());
  }

  @Test
  void missingRequiredFieldIsNamed() {
    FleetException e = assertThrows(FleetException.class,
      () -> catalog.validate(catalog.require("run_command"), new JsonObject()));
    assertTrue(e.getMessage().contains("command"), e.getMessage());
  }

  @Test
  void unknownFieldIsRefused() {
    FleetException e = assertThrows(FleetException.class,
      () -> catalog.validate(catalog.require("get_system_info"), new JsonObject().put("verbose", true)));
    assertTrue(e.getMessage().contains("verbose"), e.getMessage());
  }

  @Test
  void defaultsAreFilledInWithoutTouchingTheInput() {
    JsonObject input = new JsonObject().put("name_filter", "java");
    JsonObject args = catalog.validate(catalog.require("get_running_processes"), input);
    assertEquals(50, args.getInteger("limit"));
    assertFalse(input.containsKey("limit"));
  }

  @Test
  void arrayItemsAreChecked() {
    FleetException e = assertThrows(FleetException.class, () -> catalog.validate(catalog.require("run_command"),
      new JsonObject().put("command", "echo").put("args", new JsonArray().add(1))));
    assertTrue(e.getMessage().contains("args"), e.getMessage());
  }

  @Test
  void tierOverrideMovesATool() {
    ToolCatalog moved = catalog.withTierOverrides(new JsonObject().put("get_disk_usage", 2));
    assertEquals(2, moved.require("get_disk_usage").tier());
    assertThrows(IllegalArgumentException.class, () -> catalog.withTierOverrides(new JsonObject().put("nope", 2)));
    assertThrows(IllegalArgumentException.class, () -> catalog.withTierOverrides(new JsonObject().put("get_disk_usage", 4)));
  }

  @Test
  void catalogueHasEveryNowToolAndSeedAliasesResolve() {
    assertEquals(37 + 15, catalog.all().size(), "issue-4 tools + issue-7 process and job tools");
    for (String[] pair : new String[][] {{"fs.read", "read_file"}, {"read", "read_file"}, {"fs.list", "list_directory"},
      {"fs.glob", "glob_files"}, {"grep", "grep_files"}, {"fs.write", "write_file"}, {"fs.edit", "edit_file"},
      {"fs.multi_edit", "multi_edit"}, {"fs.create.dir", "create_dir"}, {"fs.create_dir", "create_dir"},
      {"fs.delete", "delete_path"}, {"execute_script", "run_script"}, {"run_powershell", "run_script"},
      {"bash", "run_script"}, {"get_event_logs_filtered", "get_event_logs"}, {"manage_windows_service", "manage_service"},
      {"devices", "list_nodes"}, {"aegis.tools.list", "list_tools"}, {"aegis.tools.search", "search_tools"},
      {"aegis.schema.get", "get_tool_schema"}, {"aegis.schema.validate", "validate_args"}}) {
      assertEquals(pair[1], catalog.require(pair[0]).name(), pair[0]);
    }
  }

  @Test
  void hubToolsSayWhereTheyRun() {
    for (String hub : new String[] {"list_nodes", "list_tools", "search_tools", "get_tool_schema", "validate_args",
      "get_site_logs"}) {
      assertTrue(catalog.require(hub).runsOnHub(), hub);
    }
    assertFalse(catalog.require("read_file").runsOnHub());
  }

  @Test
  void runScriptTakesScriptOrCommandButNotNeither() {
    ToolSpec spec = catalog.require("run_script");
    assertEquals(120, catalog.validate(spec, new JsonObject().put("script", "echo hi")).getInteger("timeout_seconds"));
    assertEquals("bash", catalog.validate(spec, new JsonObject().put("command", "echo hi")).getString("interpreter"));
    assertThrows(FleetException.class, () -> catalog.validate(spec, new JsonObject().put("interpreter", "sh")));
    assertThrows(FleetException.class, () -> catalog.validate(spec,
      new JsonObject().put("script", "x").put("timeout_seconds", 601)));
  }

  @Test
  void seedRangesAreEnforced() {
    assertThrows(FleetException.class, () -> catalog.validate(catalog.require("get_event_logs"),
      new JsonObject().put("hours_back", 169)));
    assertThrows(FleetException.class, () -> catalog.validate(catalog.require("get_agent_logs"),
      new JsonObject().put("max_lines", 501)));
    assertThrows(FleetException.class, () -> catalog.validate(catalog.require("manage_process"),
      new JsonObject().put("name_pattern", "x").put("action", "explode")));
    assertThrows(FleetException.class, () -> catalog.validate(catalog.require("get_service_status"),
      new JsonObject().put("service_name", "-H evil")));
    assertThrows(FleetException.class, () -> catalog.validate(catalog.require("multi_edit"),
      new JsonObject().put("path", "/x").put("edits", new JsonArray())));
    JsonObject events = catalog.validate(catalog.require("get_event_logs"), new JsonObject());
    assertEquals(24, events.getInteger("hours_back"));
    assertEquals(50, events.getInteger("max_events"));
    assertEquals(7, catalog.validate(catalog.require("clean_disk_space"), new JsonObject().put("target", "temp"))
      .getInteger("older_than_days"));
  }

  @Test
  void publishedSchemasStayAsShippedAfterValidation() throws Exception {
    for (ToolSpec t : catalog.all()) {
      try {
        catalog.validate(t, new JsonObject().put("no_such_field", 1));
      } catch (FleetException expected) {
        // every tool refuses an unknown field; what matters is the schema afterwards
      }
      String shipped;
      try (var in = ToolCatalog.class.getResourceAsStream("/fleetbus/tools/" + t.name() + ".json")) {
        shipped = new String(in.readAllBytes(), java.nio.charset.StandardCharsets.UTF_8);
      }
      assertEquals(new JsonObject(shipped).getJsonObject("inputSchema"), t.inputSchema(), t.name());
      assertFalse(t.toJson().encode().contains("__absolute_uri__"), t.name());
    }
  }

  @Test
  void eitherOrRequiredFieldsAreNamed() {
    String[][] cases = {{"job_launch", "'command' or 'script'"}, {"run_script", "'script' or 'command'"},
      {"job_status", "'job_id' or 'execution_id'"}, {"job_wait", "'job_id' or 'execution_id'"}};
    for (String[] c : cases) {
      FleetException e = assertThrows(FleetException.class, () -> catalog.validate(catalog.require(c[0]), new JsonObject()));
      assertEquals(FailureCode.BAD_REQUEST, e.code());
      assertTrue(e.getMessage().contains("missing required field: give " + c[1]), e.getMessage());
      assertFalse(e.getMessage().contains("[]"), e.getMessage());
    }
  }

  @Test
  void everyProblemIsNamedAtOnce() {
    FleetException e = assertThrows(FleetException.class, () -> catalog.validate(catalog.require("run_command"),
      new JsonObject().put("agent_id", "web-1").put("timeout_seconds", "ten")));
    String m = e.getMessage();
    assertTrue(m.contains("missing required field 'command'"), m);
    assertTrue(m.contains("unknown field 'agent_id' (run_command takes [args, command, cwd, env, timeoutMs, timeout_seconds, user_session])"), m);
    assertTrue(m.contains("field 'timeout_seconds' must be an integer, not a string"), m);
    assertFalse(m.contains("'command' must"), "a declared field is not called unknown or wrong: " + m);
  }

  @Test
  void nestedFieldsAreNamedByTheirPath() {
    FleetException e = assertThrows(FleetException.class, () -> catalog.validate(catalog.require("multi_edit"),
      new JsonObject().put("path", "/tmp/x").put("edits", new JsonArray().add(new JsonObject().put("old", "a")))));
    assertTrue(e.getMessage().contains("'edits[0].target_content'"), e.getMessage());
    assertTrue(e.getMessage().contains("unknown field 'edits[0].old'"), e.getMessage());
    FleetException env = assertThrows(FleetException.class, () -> catalog.validate(catalog.require("job_launch"),
      new JsonObject().put("command", "true").put("env", new JsonObject().put("A", 1))));
    assertTrue(env.getMessage().contains("field 'env.A' must be a string, not an integer"), env.getMessage());
    FleetException action = assertThrows(FleetException.class, () -> catalog.validate(catalog.require("manage_process"),
      new JsonObject().put("name_pattern", "x").put("action", "explode")));
    assertTrue(action.getMessage().contains("field 'action' must be one of [\"kill\",\"suspend\",\"resume\"], not \"explode\""),
      action.getMessage());
  }

  @Test
  void aFieldOfSeveralFormsSaysWhichFormsItMayTake() {
    ToolSpec spec = catalog.require("add_process");
    JsonObject base = new JsonObject().put("name", "web").put("exe_path", "/bin/true");
    assertEquals("12", catalog.validate(spec, base.copy().put("time_delay", "12")).getValue("time_delay"));
    FleetException bool = assertThrows(FleetException.class, () -> catalog.validate(spec, base.copy().put("time_delay", true)));
    assertTrue(bool.getMessage().endsWith("field 'time_delay' must be an integer or a string, not a boolean"), bool.getMessage());
    FleetException big = assertThrows(FleetException.class, () -> catalog.validate(spec, base.copy().put("time_delay", 99_999)));
    assertTrue(big.getMessage().endsWith("field 'time_delay' must be at most 86400, not 99999"), big.getMessage());
  }
}
