package io.fleetbus.shared.bus;

import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.DeliveryOptions;
import io.vertx.core.eventbus.Message;
import io.vertx.core.eventbus.MessageConsumer;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import java.lang.reflect.InvocationTargetException;
import java.lang.reflect.Method;
import java.util.Arrays;
import java.util.Locale;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One operation of a bound service: the method, its address and how it is asked. {@link Shape#ASK} returns a
 * {@code Future}; {@link Shape#TELL} returns nothing and nobody waits (a send); {@link Shape#CALLBACK} hands its
 * answer to its last argument, a {@code Handler<AsyncResult<R>>}, on whichever thread the server answered from.
 */
record Operation(Method method, String address, Shape shape, long timeoutMs, int plusWaitOf) {
  enum Shape { ASK, TELL, CALLBACK }

  private static final Logger LOG = LoggerFactory.getLogger(Operation.class);
  private static final DeliveryOptions TELL_OPTIONS = new DeliveryOptions().setLocalOnly(true);

  static Operation of(Method method, String prefix) {
    Ask ask = method.getAnnotation(Ask.class);
    String address = ask == null || ask.address().isEmpty() ? prefix + "." + kebab(method.getName()) : ask.address();
    return new Operation(method, address, shapeOf(method), ask == null ? 0 : ask.timeoutMs(),
      ask == null ? -1 : ask.plusWaitOf());
  }

  private static Shape shapeOf(Method m) {
    Class<?>[] params = m.getParameterTypes();
    if (m.getReturnType() == Future.class) {
      return Shape.ASK;
    } else if (m.getReturnType() == void.class && params.length > 0 && params[params.length - 1] == Handler.class) {
      return Shape.CALLBACK;
    } else if (m.getReturnType() == void.class) {
      return Shape.TELL;
    }
    throw new IllegalArgumentException(m.getDeclaringClass().getSimpleName() + "." + m.getName() + " returns "
      + m.getReturnType().getSimpleName() + ": a bus operation returns a Future, or void (a tell, or an answer handed"
      + " to a last Handler<AsyncResult> argument)");
  }

  static String kebab(String name) {
    return name.replaceAll("([a-z0-9])([A-Z])", "$1-$2").toLowerCase(Locale.ROOT);
  }

  private int argumentCount(Object[] args) {
    int n = args == null ? 0 : args.length;
    return shape == Shape.CALLBACK ? n - 1 : n;
  }

  /** The client's end: sends the arguments to the operation's address and hands back its answer. */
  @SuppressWarnings("unchecked")
  Object call(Vertx vertx, Object[] args, long defaultTimeoutMs) {
    Packed body = Packed.of(args, argumentCount(args));
    if (shape == Shape.TELL) {
      try {
        vertx.eventBus().send(address, body, TELL_OPTIONS);
      } catch (IllegalArgumentException noCodec) {
        // no service was ever bound on this Vert.x: like a send nobody hears, it goes nowhere
        LOG.debug("told nobody [address: {}]", address);
      }
      return null;
    }
    long timeout = (timeoutMs > 0 ? timeoutMs : defaultTimeoutMs) + extraWait(args);
    Future<Object> answer;
    try {
      DeliveryOptions options = new DeliveryOptions().setLocalOnly(true).setSendTimeout(timeout);
      answer = vertx.eventBus().<Packed>request(address, body, options).map(msg -> Packed.unpack(msg.body()));
    } catch (IllegalArgumentException noCodec) {
      // no service was ever bound on this Vert.x, so its codec is missing: the same as nobody listening
      answer = Future.failedFuture(new ReplyException(ReplyFailure.NO_HANDLERS, "no service is bound at " + address));
    }
    if (shape == Shape.ASK) {
      return answer;
    }
    answer.onComplete((Handler<AsyncResult<Object>>) args[args.length - 1]);
    return null;
  }

  private long extraWait(Object[] args) {
    if (plusWaitOf < 0) {
      return 0;
    }
    Object arg = args[plusWaitOf];
    return arg instanceof TimeBound bound ? bound.timeoutMs() : arg instanceof Number n ? n.longValue() : 0;
  }

  /** The server's end: one local consumer that runs the method on {@code impl} and answers with its result. */
  MessageConsumer<Packed> serve(Vertx vertx, Object impl) {
    return vertx.eventBus().localConsumer(address, msg -> {
      Object[] args = msg.body().values();
      switch (shape) {
        case TELL -> told(invoke(impl, args));
        case ASK -> answered(invoke(impl, args)).onComplete(ar -> answer(msg, ar));
        case CALLBACK -> {
          Object[] withAnswer = Arrays.copyOf(args, args.length + 1);
          withAnswer[args.length] = (Handler<AsyncResult<Object>>) ar -> answer(msg, ar);
          if (invoke(impl, withAnswer) instanceof Throwable err) {
            answer(msg, Future.failedFuture(err));
          }
        }
        default -> throw new IllegalStateException(shape.name());
      }
    });
  }

  private void told(Object result) {
    if (result instanceof Throwable err) {
      LOG.warn("operation failed, nobody waits for it [address: {}]", address, err);
    }
  }

  private static Future<?> answered(Object result) {
    return result instanceof Throwable err ? Future.failedFuture(err)
      : result == null ? Future.failedFuture(new NullPointerException("no answer (a null Future)")) : (Future<?>) result;
  }

  private static void answer(Message<Packed> msg, AsyncResult<?> ar) {
    if (ar.succeeded()) {
      msg.reply(Packed.answer(ar.result()));
    } else {
      FleetReplies.fail(msg, ar.cause());
    }
  }

  /** The method's result, or what it threw (a throwing operation fails its message instead of timing out). */
  private Object invoke(Object impl, Object[] args) {
    try {
      return method.invoke(impl, args);
    } catch (InvocationTargetException thrown) {
      return thrown.getCause();
    } catch (IllegalAccessException | RuntimeException wrongCall) {
      return wrongCall;
    }
  }
}
