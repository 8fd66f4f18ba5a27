package io.fleetbus.shared.bus;

import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import java.util.Locale;
import java.util.function.Function;

/**
 * The two ends of a typed in-process service on the bus: each operation of a service interface has its own address
 * (no action header to dispatch on), served by a local consumer that answers with the operation's result or fails the
 * message with its {@link FailureCode}; the client end asks that address and gets the result or the failure back
 * (a {@link io.vertx.core.eventbus.ReplyException} carrying the code, which {@link FailureCode#of(Throwable)} reads).
 */
public final class LocalServices {
  private static final long DEFAULT_TIMEOUT_MS = 30_000;

  private LocalServices() {
  }

  /**
   * The address of operation {@code op} of the service at {@code service}: the service's address, a dot, and the
   * operation's name in lower case with dashes, e.g. {@code fleet.hub.monitor.member-left} for {@code MEMBER_LEFT}.
   */
  public static String address(String service, Enum<?> op) {
    return service + "." + op.name().toLowerCase(Locale.ROOT).replace('_', '-');
  }

  /** Serves one operation at {@code address}: its result is the reply, its failure fails the message. */
  public static <T, R> MessageConsumer<T> serve(Vertx vertx, String address, Function<T, Future<R>> operation) {
    return vertx.eventBus().localConsumer(address, msg -> {
      Future<R> result;
      try {
        result = operation.apply(msg.body());
      } catch (RuntimeException err) {
        result = Future.failedFuture(err);
      }
      result.onSuccess(msg::reply).onFailure(err -> FleetReplies.fail(msg, err));
    });
  }

  /** Asks the operation served at {@code address} with {@code body}, within the default 30 s. */
  public static <R> Future<R> ask(Vertx vertx, String address, Object body) {
    return ask(vertx, address, body, DEFAULT_TIMEOUT_MS);
  }

  /** Asks the operation served at {@code address} with {@code body}, within {@code timeoutMs}. */
  public static <R> Future<R> ask(Vertx vertx, String address, Object body, long timeoutMs) {
    DeliveryOptions local = new DeliveryOptions().setLocalOnly(true).setSendTimeout(timeoutMs);
    return vertx.eventBus().<R>request(address, body, local).map(Message::body);
  }
}
