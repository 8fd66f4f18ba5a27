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
 * {@link #client} and {@link #bind} make both ends from the interface itself (a proxy; one consumer per method);
 * {@link #serve} and {@link #ask} are the single-address forms beneath, for an address that is no service's.
 */
public final class LocalServices {
  private static final long DEFAULT_TIMEOUT_MS = 30_000;

  private LocalServices() {
  }

  /**
   * A client of {@code service}: each of its methods asks the operation bound at {@code prefix} (see {@link #bind}),
   * within the method's {@link Ask#timeoutMs()} or 30 s. Default methods run on the client, over the bound ones.
   */
  public static <S> S client(Vertx vertx, Class<S> service, String prefix) {
    return client(vertx, service, prefix, DEFAULT_TIMEOUT_MS);
  }

  /** As {@link #client(Vertx, Class, String)}, methods without their own {@link Ask#timeoutMs()} waiting {@code defaultTimeoutMs}. */
  public static <S> S client(Vertx vertx, Class<S> service, String prefix, long defaultTimeoutMs) {
    return service.cast(ServiceOperations.of(service, prefix).client(vertx, defaultTimeoutMs));
  }

  /**
   * Serves every abstract method of {@code service} on {@code impl}, one local consumer per method at its address
   * ({@code prefix} + "." + the method's name in kebab case, unless its {@link Ask#address()} says otherwise): the
   * arguments arrive as sent (records by reference, JSON copied), the answer or the failure's {@link FailureCode} goes
   * back. Completes once every consumer is registered. Call it from the verticle that owns the service's state.
   */
  public static <S> Future<Void> bind(Vertx vertx, Class<S> service, S impl, String prefix) {
    Packed.register(vertx);
    return Future.all(ServiceOperations.of(service, prefix).byMethod().values().stream()
      .map(op -> op.serve(vertx, impl).completion()).toList()).mapEmpty();
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
