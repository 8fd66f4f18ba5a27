package io.fleetbus.bench.floor;

import io.fleetbus.shared.cluster.ClusterLauncher;
import io.vertx.core.DeploymentOptions;
import io.vertx.core.Future;
import io.vertx.core.ThreadingModel;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;

/**
 * The far end of the floor: a clustered Vert.x (data member, like a hub) with one consumer that replies
 * at once with the message it got, and, when {@value #DURABLE_DB} names a SQLite file, the durable floor's
 * repliers ({@link DurableReplier}: on the context the cluster start completed on, which then serves the echo too so
 * that both take the same path, and on a worker). Cluster name, port and members come from the FLEETBUS_CLUSTER_* variables.
 * Prints {@code floor server ready} when its consumers are registered.
 */
public final class FloorServerMain {
  /** The echo address; no fleetbus verticle uses it. */
  public static final String ECHO = "bench.floor.echo";
  /** The SQLite file the durable floor appends to (in the bench's data folder, on the hubs' file system). */
  public static final String DURABLE_DB = "FLEETBUS_BENCH_DURABLE_DB";

  private FloorServerMain() {
  }

  private static Future<?> startHere(DurableReplier replier, io.vertx.core.Vertx vertx) {
    try {
      return replier.startHere(vertx);
    } catch (Exception e) {
      return Future.failedFuture(e);
    }
  }

  public static void main(String[] args) {
    String durable = System.getenv(DURABLE_DB);
    ClusterLauncher.start(new JsonObject(), false)
      .compose(member -> (durable == null || durable.isBlank()
        ? member.vertx().eventBus().<JsonObject>consumer(ECHO, msg -> msg.reply(msg.body())).completion().<Void>mapEmpty()
        : startHere(new DurableReplier(Path.of(durable), DurableReplier.ADDRESS), member.vertx())
            .compose(w -> member.vertx().deployVerticle(new DurableReplier(Path.of(durable).resolveSibling("hop-" + Path.of(durable).getFileName()),
              DurableReplier.HOP_ADDRESS), new DeploymentOptions().setThreadingModel(ThreadingModel.WORKER))).mapEmpty()))
      .onSuccess(v -> System.out.println("floor server ready"))
      .onFailure(err -> {
        System.out.println("floor server failed: " + err);
        System.exit(1);
      });
  }
}
