package io.fleetbus.shared.bus;

import io.vertx.core.Vertx;
import java.lang.invoke.MethodHandle;
import java.lang.invoke.MethodHandles;
import java.lang.invoke.MethodType;
import java.lang.reflect.InvocationHandler;
import java.lang.reflect.Method;
import java.lang.reflect.Modifier;
import java.lang.reflect.Proxy;
import java.util.HashMap;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;

/**
 * The operations of one service interface under one address prefix, worked out once per interface and prefix: the
 * client's proxy finds a method's operation in a map built here, and makes its proxy through a cached constructor.
 */
final class ServiceOperations {
  private final Class<?> service;
  private final String prefix;
  private final Map<Method, Operation> byMethod;
  private final MethodHandle proxyMaker;
  /** The client made last: a process has one Vert.x, so clients made per use are the same one. */
  private volatile ServiceClient lastClient;

  private ServiceOperations(Class<?> service, String prefix, Map<Method, Operation> byMethod, MethodHandle maker) {
    this.service = service;
    this.prefix = prefix;
    this.byMethod = byMethod;
    this.proxyMaker = maker;
  }

  /** Per interface, per prefix: a client is made per use in places, so finding its operations must cost nothing. */
  private static final ClassValue<Map<String, ServiceOperations>> KNOWN = new ClassValue<>() {
    @Override
    protected Map<String, ServiceOperations> computeValue(Class<?> type) {
      return new ConcurrentHashMap<>();
    }
  };

  static ServiceOperations of(Class<?> service, String prefix) {
    Map<String, ServiceOperations> byPrefix = KNOWN.get(service);
    ServiceOperations known = byPrefix.get(prefix);
    return known != null ? known : byPrefix.computeIfAbsent(prefix, p -> build(service, p));
  }

  private static ServiceOperations build(Class<?> service, String prefix) {
    if (!service.isInterface()) {
      throw new IllegalArgumentException(service.getName() + " is not an interface: only interfaces are bound");
    }
    Map<Method, Operation> ops = new HashMap<>();
    Map<String, Method> byAddress = new HashMap<>();
    for (Method m : service.getMethods()) {
      if (Modifier.isAbstract(m.getModifiers())) {
        Operation op = Operation.of(m, prefix);
        Method clash = byAddress.put(op.address(), m);
        if (clash != null) {
          throw new IllegalArgumentException(service.getSimpleName() + "." + m.getName() + " and ." + clash.getName()
            + " would share address " + op.address() + ": give one an @Ask(address = ...)");
        }
        ops.put(m, op);
      }
    }
    return new ServiceOperations(service, prefix, Map.copyOf(ops), proxyMaker(service));
  }

  private static MethodHandle proxyMaker(Class<?> service) {
    Class<?> proxyClass = Proxy.newProxyInstance(service.getClassLoader(), new Class<?>[] {service},
      (proxy, method, args) -> null).getClass();
    try {
      return MethodHandles.publicLookup().findConstructor(proxyClass,
          MethodType.methodType(void.class, InvocationHandler.class))
        .asType(MethodType.methodType(Object.class, InvocationHandler.class));
    } catch (ReflectiveOperationException e) {
      throw new IllegalStateException("no proxy constructor for " + service.getName(), e);
    }
  }

  Class<?> service() {
    return service;
  }

  String prefix() {
    return prefix;
  }

  Map<Method, Operation> byMethod() {
    return byMethod;
  }

  /** A client on {@code vertx}: the last one made when it is the same, a new proxy otherwise. */
  Object client(Vertx vertx, long defaultTimeoutMs) {
    ServiceClient last = lastClient;
    if (last != null && last.vertx() == vertx && last.defaultTimeoutMs() == defaultTimeoutMs) {
      return last.proxy();
    }
    try {
      ServiceClient made = new ServiceClient(vertx, this, defaultTimeoutMs);
      made.proxy(proxyMaker.invokeExact((InvocationHandler) made));
      lastClient = made;
      return made.proxy();
    } catch (Throwable e) {
      throw new IllegalStateException("could not make a client of " + service.getName(), e);
    }
  }
}
