package io.fleetbus.shared.fuzz;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotNull;

import com.code_intelligence.jazzer.api.FuzzedDataProvider;
import com.code_intelligence.jazzer.junit.FuzzTest;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.catalog.ToolSpec;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import org.junit.jupiter.api.Tag;

/**
 * Arguments built from the fuzzer's bytes — the tool's own field names mixed with strangers, values
 * of every JSON type — against every tool's schema: accepted (arguments returned) or refused with a
 * 400 naming the problem; never another exception.
 */
@Tag("fuzz")
class ToolArgumentsFuzzTest {
  private static final ToolCatalog CATALOG = ToolCatalog.load();
  private static final List<ToolSpec> TOOLS = List.copyOf(CATALOG.all());

  @FuzzTest(maxDuration = "30s")
  void anyArgumentsAreAcceptedOrRefusedWith400(FuzzedDataProvider data) {
    ToolSpec spec = TOOLS.get(data.consumeInt(0, TOOLS.size() - 1));
    List<String> names = new ArrayList<>(spec.inputSchema().getJsonObject("properties", new JsonObject()).fieldNames());
    JsonObject args = new JsonObject();
    int fields = data.consumeInt(0, 6);
    for (int i = 0; i < fields; i++) {
      String name = names.isEmpty() || data.consumeBoolean() ? data.consumeString(12) : data.pickValue(names);
      args.put(name, value(data, 0));
    }
    try {
      assertNotNull(CATALOG.validate(spec, args));
    } catch (FleetException e) {
      assertEquals(FailureCode.BAD_REQUEST, e.code(), e.getMessage());
      assertNotNull(e.getMessage());
    }
  }

  private static Object value(FuzzedDataProvider data, int depth) {
    switch (data.consumeInt(0, depth > 2 ? 4 : 6)) {
      case 0:
        return null;
      case 1:
        return data.consumeBoolean();
      case 2:
        return data.consumeLong();
      case 3:
        return data.consumeDouble();
      case 4:
        return data.consumeString(64);
      case 5: {
        JsonArray a = new JsonArray();
        for (int i = data.consumeInt(0, 4); i > 0; i--) {
          a.add(value(data, depth + 1));
        }
        return a;
      }
      default: {
        JsonObject o = new JsonObject();
        for (int i = data.consumeInt(0, 3); i > 0; i--) {
          o.put(data.consumeString(8), value(data, depth + 1));
        }
        return o;
      }
    }
  }
}
