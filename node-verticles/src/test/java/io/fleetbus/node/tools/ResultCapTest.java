package io.fleetbus.node.tools;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

class ResultCapTest {
  @Test
  void smallResultsPassUntouched() {
    JsonObject small = new JsonObject().put("a", 1);
    assertSame(small, ResultCap.apply(small, 1000));
  }

  @Test
  void bigResultsAreCutBelowTheCapAndMarked() {
    JsonArray items = new JsonArray();
    for (int i = 0; i < 5000; i++) {
      items.add(new JsonObject().put("line", "entry number " + i));
    }
    JsonObject big = new JsonObject().put("items", items).put("text", "y".repeat(50_000)).put("count", 5000);
    JsonObject cut = ResultCap.apply(big, 10_000);
    assertTrue(cut.encode().length() <= 10_000, "size " + cut.encode().length());
    assertTrue(cut.getBoolean("truncated"));
    assertEquals(5000, cut.getInteger("count"), "small fields survive");
    assertEquals(5000, big.getJsonArray("items").size(), "the input is not changed");
  }
}
