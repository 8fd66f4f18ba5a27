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
}
