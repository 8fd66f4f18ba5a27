package io.fleetbus.bench.floor;

import io.fleetbus.shared.cluster.ClusterLauncher;
import io.vertx.core.json.JsonObject;

/**
 * The far end of the floor: a clustered Vert.x (data member, like a hub) with one consumer that replies
 * at once with the message it got. Cluster name, port and members come from the FLEETBUS_CLUSTER_* variables.
 * Prints {@code floor server ready} when its consumer is registered.
 */
public final class FloorServerMain {
  /** The echo address; no fleetbus verticle uses it. */
  public static final String ECHO = "bench.floor.echo";

  private FloorServerMain() {
  }

  public static void main(String[] args) {
    ClusterLauncher.start(new JsonObject(), false)
      .compose(member -> member.vertx().eventBus().<JsonObject>consumer(ECHO, msg -> msg.reply(msg.body())).completion())
      .onSuccess(v -> System.out.println("floor server ready"))
      .onFailure(err -> {
        System.out.println("floor server failed: " + err);
        System.exit(1);
      });
  }
}
