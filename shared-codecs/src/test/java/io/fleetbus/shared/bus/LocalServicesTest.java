package io.fleetbus.shared.bus;

import static org.junit.jupiter.api.Assertions.assertEquals;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.extension.ExtendWith;

@ExtendWith(VertxExtension.class)
class LocalServicesTest {
  @Test
  void anOperationAnswersItsResult(Vertx vertx, VertxTestContext ctx) {
    LocalServices.<JsonObject, JsonObject>serve(vertx, "t.echo", body -> Future.succeededFuture(body.copy().put("seen", true)));
    LocalServices.<JsonObject>ask(vertx, "t.echo", new JsonObject().put("n", 1))
        .onComplete(ctx.succeeding(answer -> ctx.verify(() -> {
          assertEquals(new JsonObject().put("n", 1).put("seen", true), answer);
          ctx.completeNow();
        })));
  }

  @Test
  void aFailureComesBackWithItsCode(Vertx vertx, VertxTestContext ctx) {
    LocalServices.<String, String>serve(vertx, "t.missing",
        name -> Future.failedFuture(new FleetException(FailureCode.NOT_FOUND, "no node " + name)));
    LocalServices.ask(vertx, "t.missing", "n9").onComplete(ctx.failing(err -> ctx.verify(() -> {
      assertEquals(FailureCode.NOT_FOUND, FailureCode.of(err));
      assertEquals("no node n9", err.getMessage());
      ctx.completeNow();
    })));
  }

  @Test
  void aThrowingOperationFailsTheMessageInsteadOfTimingOut(Vertx vertx, VertxTestContext ctx) {
    LocalServices.<String, String>serve(vertx, "t.throws", name -> {
      throw new IllegalArgumentException("bad name " + name);
    });
    LocalServices.ask(vertx, "t.throws", "x", 5_000).onComplete(ctx.failing(err -> ctx.verify(() -> {
      assertEquals(FailureCode.of(new IllegalArgumentException()), FailureCode.of(err));
      assertEquals("bad name x", err.getMessage());
      ctx.completeNow();
    })));
  }
}
