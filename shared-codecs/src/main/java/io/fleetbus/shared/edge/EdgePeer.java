package io.fleetbus.shared.edge;

import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.MultiMap;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.eventbus.ReplyFailure;
import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.NetSocket;
import io.vertx.core.parsetools.RecordParser;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * One end of an edge link (a hub's edge endpoint, or an edge node): event-bus sends, publishes and replies as
 * {@link EdgeFrames} over one socket. Either end may ask the other (a send with an id) and answers what it is asked.
 * Bounded: a frame over {@link Limits#maxFrameBytes}, more than {@link Limits#maxFramesPerSecond} frames in a second,
 * or a frame that is not JSON cuts the link (logged at WARN with the reason); while the socket's write queue is full,
 * publishes are dropped and asks fail at once (503) instead of queueing without end. When the link closes, every ask
 * still waiting fails with 504 (its outcome is unknown). Thread-safe: any thread may send.
 */
public final class EdgePeer {
  private static final Logger LOG = LoggerFactory.getLogger(EdgePeer.class);

  /** A send or publish from the other end; {@code replyId} > 0 when it waits for {@link #reply}/{@link #fail}. */
  public record Incoming(String address, Object body, MultiMap headers, long replyId) {
    public boolean wantsReply() {
      return replyId > 0;
    }
  }

  /** What the other end answered to an ask. */
  public record Answer(Object body, MultiMap headers) {
  }

  /**
   * How much one link may carry: {@code maxUnprovenFrameBytes} until the other end is {@link #trust() trusted} (a hub
   * trusts a link once its hello was accepted), {@code maxFrameBytes} after.
   */
  public record Limits(int maxFrameBytes, int maxFramesPerSecond, int maxUnprovenFrameBytes) {
    /** A hello names tools, labels and proofs: a few KiB. Before it is accepted nobody may make the hub buffer more. */
    public static final int UNPROVEN_FRAME_BYTES = 64 << 10;
    /** 16 MiB frames (a tool's largest answer), 5000 frames a second (a busy node streams ~100). */
    public static final Limits DEFAULT = new Limits(16 << 20, 5000);

    public Limits(int maxFrameBytes, int maxFramesPerSecond) {
      this(maxFrameBytes, maxFramesPerSecond, Math.min(maxFrameBytes, UNPROVEN_FRAME_BYTES));
    }
  }

  private record Pending(Promise<Answer> answer, long timer) {
  }

  private final Vertx vertx;
  private final NetSocket socket;
  private final String peer;
  private final Limits limits;
  private final Map<Long, Pending> pending = new ConcurrentHashMap<>();
  private final AtomicLong ids = new AtomicLong();
  private final Promise<String> closed = Promise.promise();
  private volatile Handler<Incoming> onMessage = m -> { };
  private volatile Handler<JsonObject> onWelcome = w -> { };
  private volatile String closeReason;
  /** The largest frame read now: the unproven cap until {@link #trust()}. */
  private volatile int frameCap;
  private long windowStart;
  private int framesInWindow;
  private final LastHeard lastHeard = new LastHeard();

  public EdgePeer(Vertx vertx, NetSocket socket, String peer, Limits limits) {
    this.vertx = vertx;
    this.socket = socket;
    this.peer = peer;
    this.limits = limits;
    this.frameCap = limits.maxUnprovenFrameBytes();
  }

  /**
   * The other end proved who it is (the hub accepted its hello; for a node, the pinned certificate is the proof): frames
   * up to {@link Limits#maxFrameBytes} are read from now on. Until then a frame over the unproven cap closes the link,
   * so a client without a credential cannot make this end buffer 16 MiB per connection.
   */
  public EdgePeer trust() {
    frameCap = limits.maxFrameBytes();
    return this;
  }

  public EdgePeer onMessage(Handler<Incoming> handler) {
    this.onMessage = handler;
    return this;
  }

  public EdgePeer onWelcome(Handler<JsonObject> handler) {
    this.onWelcome = handler;
    return this;
  }

  /** Starts reading; call once the handlers are set. */
  public EdgePeer start() {
    RecordParser parser = RecordParser.newFixed(4);
    boolean[] atLength = {true};
    parser.handler(buf -> {
      if (atLength[0]) {
        int length = buf.getInt(0);
        int cap = frameCap;
        if (length <= 0 || length > cap) {
          close("a frame of " + length + " bytes (at most " + cap + (cap < limits.maxFrameBytes() ? " before the link"
            + " proved who it is" : "") + ")");
          return;
        }
        atLength[0] = false;
        parser.fixedSizeMode(length);
      } else {
        atLength[0] = true;
        parser.fixedSizeMode(4);
        onFrame(buf);
      }
    });
    socket.handler(lastHeard.before(parser));
    socket.exceptionHandler(err -> close("socket error: " + err.getMessage()));
    socket.closeHandler(v -> ended(closeReason == null ? "closed by " + peer : closeReason));
    return this;
  }

  /** Who is at the other end (for logs). */
  public String peer() {
    return peer;
  }

  /** Completes with the reason once the link is closed. */
  public Future<String> closed() {
    return closed.future();
  }

  public boolean isOpen() {
    return !closed.future().isComplete();
  }

  /** Asks the other end to send {@code body} to {@code address} and answer; fails as a bus request would. */
  public Future<Answer> request(String address, Object body, MultiMap headers, long timeoutMs) {
    if (!isOpen()) {
      return Future.failedFuture(new ReplyException(ReplyFailure.NO_HANDLERS, 503, "edge link to " + peer + " is down"));
    }
    if (socket.writeQueueFull()) {
      return Future.failedFuture(new ReplyException(ReplyFailure.RECIPIENT_FAILURE, 503,
        "edge link to " + peer + " is congested"));
    }
    long id = ids.incrementAndGet();
    Promise<Answer> answer = Promise.promise();
    long timer = vertx.setTimer(timeoutMs, t -> {
      if (pending.remove(id) != null) {
        answer.tryFail(new ReplyException(ReplyFailure.TIMEOUT, -1, "no answer from " + peer + " within " + timeoutMs
          + " ms (address " + address + ")"));
      }
    });
    pending.put(id, new Pending(answer, timer));
    write(message(EdgeFrames.SEND, address, body, headers).put("id", id));
    return answer.future();
  }

  /** Sends without waiting for an answer; dropped while the link is down or congested. */
  public boolean send(String address, Object body, MultiMap headers) {
    return offer(message(EdgeFrames.SEND, address, body, headers));
  }

  public boolean publish(String address, Object body, MultiMap headers) {
    return offer(message(EdgeFrames.PUBLISH, address, body, headers));
  }

  /** Answers the ask {@code replyId} of the other end. */
  public void reply(long replyId, Object body, MultiMap headers) {
    JsonObject frame = new JsonObject().put(EdgeFrames.TYPE, EdgeFrames.OK).put("re", replyId);
    if (headers != null && !headers.isEmpty()) {
      frame.put("h", EdgeFrames.headers(headers));
    }
    write(EdgeFrames.withBody(frame, body));
  }

  public void fail(long replyId, int code, String message) {
    write(new JsonObject().put(EdgeFrames.TYPE, EdgeFrames.FAIL).put("re", replyId).put("c", code).put("m", message));
  }

  /** The hub's first frame: who the node reached (its cluster member, hub id). */
  public void welcome(JsonObject info) {
    write(info.copy().put(EdgeFrames.TYPE, EdgeFrames.WELCOME));
  }

  /** Pings the other end (it answers with a pong): completes once the ping is handed to the network. */
  public Future<Void> ping() {
    return write(new JsonObject().put(EdgeFrames.TYPE, EdgeFrames.PING));
  }

  public LastHeard lastHeard() {
    return lastHeard;
  }

  /** Closes the link; {@code reason} is logged and given to {@link #closed()}. */
  public void close(String reason) {
    if (closeReason == null && isOpen()) {
      closeReason = reason;
      LOG.warn("edge link closed [peer: {}, reason: {}]", peer, reason);
    }
    socket.close();
  }

  private static JsonObject message(String type, String address, Object body, MultiMap headers) {
    JsonObject frame = new JsonObject().put(EdgeFrames.TYPE, type).put("a", address);
    if (headers != null && !headers.isEmpty()) {
      frame.put("h", EdgeFrames.headers(headers));
    }
    return EdgeFrames.withBody(frame, body);
  }

  private boolean offer(JsonObject frame) {
    if (!isOpen() || socket.writeQueueFull()) {
      return false;
    }
    write(frame);
    return true;
  }

  private Future<Void> write(JsonObject frame) {
    return isOpen() ? socket.write(EdgeFrames.encode(frame)) : Future.failedFuture("edge link to " + peer + " is down");
  }

  private void onFrame(Buffer bytes) {
    long now = System.nanoTime();
    if (now - windowStart > 1_000_000_000L) {
      windowStart = now;
      framesInWindow = 0;
    }
    if (++framesInWindow > limits.maxFramesPerSecond()) {
      close("flooding: more than " + limits.maxFramesPerSecond() + " frames in a second");
      return;
    }
    JsonObject frame;
    try {
      frame = bytes.toJsonObject();
    } catch (DecodeException | ClassCastException e) {
      close("a frame that is not a JSON object");
      return;
    }
    try {
      dispatch(frame);
    } catch (IllegalArgumentException | ClassCastException e) {
      close("a malformed frame: " + e.getMessage());
    }
  }

  private void dispatch(JsonObject frame) {
    switch (String.valueOf(frame.getString(EdgeFrames.TYPE))) {
      case EdgeFrames.SEND, EdgeFrames.PUBLISH -> {
        String address = frame.getString("a");
        if (address == null || address.isEmpty()) {
          throw new IllegalArgumentException("no address");
        }
        long id = frame.getLong("id", 0L);
        onMessage.handle(new Incoming(address, EdgeFrames.body(frame), EdgeFrames.headers(frame), id));
      }
      case EdgeFrames.OK -> answered(frame.getLong("re", 0L), p -> p.tryComplete(new Answer(EdgeFrames.body(frame),
        EdgeFrames.headers(frame))));
      case EdgeFrames.FAIL -> answered(frame.getLong("re", 0L), p -> p.tryFail(new ReplyException(
        ReplyFailure.RECIPIENT_FAILURE, frame.getInteger("c", 500), frame.getString("m"))));
      case EdgeFrames.WELCOME -> onWelcome.handle(frame);
      case EdgeFrames.PING -> offer(new JsonObject().put(EdgeFrames.TYPE, EdgeFrames.PONG));
      case EdgeFrames.PONG -> {
        // the idle timeout is reset by any read
      }
      default -> throw new IllegalArgumentException("unknown frame type '" + frame.getString(EdgeFrames.TYPE) + "'");
    }
  }

  private void answered(long id, Handler<Promise<Answer>> outcome) {
    Pending p = pending.remove(id);
    if (p != null) {
      vertx.cancelTimer(p.timer());
      outcome.handle(p.answer());
    }
  }

  private void ended(String reason) {
    if (!closed.tryComplete(reason)) {
      return;
    }
    if (closeReason == null) {
      LOG.info("edge link closed [peer: {}, reason: {}]", peer, reason);
    }
    for (Long id : pending.keySet()) {
      answered(id, p -> p.tryFail(new ReplyException(ReplyFailure.RECIPIENT_FAILURE, 504,
        "the edge link to " + peer + " closed before it answered (" + reason + "): its outcome is unknown")));
    }
  }
}
