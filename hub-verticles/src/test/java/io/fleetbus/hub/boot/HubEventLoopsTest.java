package io.fleetbus.hub.boot;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNull;

import io.vertx.core.json.JsonObject;
import org.junit.jupiter.api.Test;

/** A hub on a small machine runs on one event loop unless its conf says otherwise. */
class HubEventLoopsTest {
  @Test
  void oneLoopOnTwoCoresOrFewerTheConfWinsAndBiggerMachinesKeepTheDefault() {
    JsonObject conf = new JsonObject().put("httpPort", 8080);
    assertEquals(1, HubMain.withEventLoopDefault(conf, 2).getInteger("eventLoops"));
    assertEquals(1, HubMain.withEventLoopDefault(conf, 1).getInteger("eventLoops"));
    assertNull(conf.getValue("eventLoops"), "the caller's conf is not changed");
    assertNull(HubMain.withEventLoopDefault(conf, 4).getValue("eventLoops"), "Vert.x's default above 2 cores");
    assertEquals(3, HubMain.withEventLoopDefault(conf.copy().put("eventLoops", 3), 2).getInteger("eventLoops"));
  }
}
