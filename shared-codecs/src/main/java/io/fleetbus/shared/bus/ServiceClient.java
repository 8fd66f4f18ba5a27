package io.fleetbus.shared.bus;

import io.vertx.core.Vertx;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;

/** The proxy behind a client of a bound service: each abstract method asks its operation's address. */
final class ServiceClient implements InvocationHandler {
  private final Vertx vertx;
  private final ServiceOperations operations;
  private final long defaultTimeoutMs;
  private Object proxy;

  ServiceClient(Vertx vertx, ServiceOperations operations, long defaultTimeoutMs) {
    this.vertx = vertx;
    this.operations = operations;
    this.defaultTimeoutMs = defaultTimeoutMs;
  }

  Vertx vertx() {
    return vertx;
  }

  long defaultTimeoutMs() {
    return defaultTimeoutMs;
  }

  Object proxy() {
    return proxy;
  }

  /** Set once, before the client is published (through a volatile field). */
  void proxy(Object made) {
    this.proxy = made;
  }

  @Override
  public Object invoke(Object proxy, Method method, Object[] args) throws Throwable {
    Operation op = operations.byMethod().get(method);
    if (op != null) {
      return op.call(vertx, args, defaultTimeoutMs);
    } else if (method.isDefault()) {
      return InvocationHandler.invokeDefault(proxy, method, args);
    }
    return switch (method.getName()) {
      case "equals" -> proxy == args[0];
      case "hashCode" -> System.identityHashCode(proxy);
      case "toString" -> operations.service().getSimpleName() + " client [" + operations.prefix() + "]";
      default -> throw new UnsupportedOperationException(method.toString());
    };
  }
}
