package io.fleetbus.hub.store;

import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import java.util.ArrayDeque;
import java.util.ArrayList;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Group commit for one store: items queue up on the owning verticle's event loop and are written in batches (one
 * transaction, one fsync each) by ordered blocking tasks on that verticle's context, so a batch runs after every
 * blocking task the verticle started before it. Whoever waits for an item ({@link #commit}) hears back only once its
 * batch is committed (never before: this is not write-behind). A batch goes {@code batchMs} after its first item or
 * once it holds {@code batchMax} (it holds at most that many); what arrives while one is written goes right after it,
 * so with {@code batchMs} 0 a lone item waits for nothing and under load the batches form by themselves. Used on one
 * event loop only.
 *
 * @param <T> what one item is (a row, an entry)
 */
public final class GroupCommit<T> {
  private static final Logger LOG = LoggerFactory.getLogger(GroupCommit.class);

  /** Writes one batch, all of it or none (blocking; runs on a worker). */
  @FunctionalInterface
  public interface Writer<T> {
    void write(List<T> batch) throws Exception;
  }

  /**
   * @param waiter   hears on this store's event loop
   * @param answered hears on the writing worker thread, right after the commit (or the failure): it may only hand the
   *                 answer on (reply to a message), never touch the owner's state
   */
  private record Queued<T>(T item, Promise<Void> waiter, Handler<AsyncResult<Void>> answered) {
  }

  private final Vertx vertx;
  private final String what;
  private final long batchMs;
  private final int batchMax;
  private final Writer<T> writer;
  private final ArrayDeque<Queued<T>> queue = new ArrayDeque<>();
  private int writing;
  private long timer = -1;

  /** @param what names the store in log lines ("audit append", "registrations") */
  public GroupCommit(Vertx vertx, String what, long batchMs, int batchMax, Writer<T> writer) {
    this.vertx = vertx;
    this.what = what;
    this.batchMs = batchMs;
    this.batchMax = batchMax;
    this.writer = writer;
  }

  /** Queues the item; nobody waits for its commit. */
  public void add(T item) {
    queue.add(new Queued<>(item, null, null));
    schedule();
  }

  /** Queues the item; completes once its batch is committed, fails when that batch could not be written. */
  public Future<Void> commit(T item) {
    Promise<Void> committed = Promise.promise();
    queue.add(new Queued<>(item, committed, null));
    schedule();
    return committed.future();
  }

  /**
   * Queues the item; {@code answered} hears how its batch went on the worker thread that wrote it, right after the
   * commit: one thread hand-off less than {@link #commit} (worker → this loop → the waiter's loop) for an answer that
   * only travels on, such as a reply to the message that asked. It must not touch the owner's state.
   */
  public void commit(T item, Handler<AsyncResult<Void>> answered) {
    queue.add(new Queued<>(item, null, answered));
    schedule();
  }

  /** Starts writing what is queued now (a reader wants everything queued before it in the store). */
  public void flushNow() {
    if (timer >= 0) {
      vertx.cancelTimer(timer);
      timer = -1;
    }
    if (queue.isEmpty()) {
      return;
    }
    writing++;
    write(take(batchMax)).onComplete(ar -> {
      writing--;
      if (!queue.isEmpty()) {
        // these waited for the batch before them: they go now
        flushNow();
      }
    });
  }

  /** At a stop: what is still queued, written in one last batch. */
  public Future<Void> drain() {
    if (timer >= 0) {
      vertx.cancelTimer(timer);
      timer = -1;
    }
    return write(take(Integer.MAX_VALUE));
  }

  /** A batch is due when it is full, or {@code batchMs} after its first item; never two waiting at once. */
  private void schedule() {
    if (writing > 0) {
      return;
    }
    if (queue.size() >= batchMax || batchMs == 0) {
      flushNow();
    } else if (timer < 0) {
      timer = vertx.setTimer(batchMs, t -> {
        timer = -1;
        flushNow();
      });
    }
  }

  /** The oldest {@code max} queued items; the rest wait for the next batch. */
  private List<Queued<T>> take(int max) {
    List<Queued<T>> batch = new ArrayList<>(Math.min(max, queue.size()));
    while (!queue.isEmpty() && batch.size() < max) {
      batch.add(queue.poll());
    }
    return batch;
  }

  private static <T> void answerFromWorker(List<Queued<T>> batch, AsyncResult<Void> how) {
    for (Queued<T> q : batch) {
      if (q.answered() != null) {
        try {
          q.answered().handle(how);
        } catch (RuntimeException e) {
          LOG.error("a commit's answer failed [reason: {}]", e.toString());
        }
      }
    }
  }

  /** Writes the batch in one ordered blocking task, then answers its waiters. */
  private Future<Void> write(List<Queued<T>> batch) {
    if (batch.isEmpty()) {
      return Future.succeededFuture();
    }
    List<T> items = batch.stream().map(Queued::item).toList();
    return vertx.<Void>executeBlocking(() -> {
      try {
        writer.write(items);
      } catch (Exception e) {
        answerFromWorker(batch, Future.failedFuture(e));
        throw e;
      }
      answerFromWorker(batch, Future.succeededFuture());
      return null;
    }).onComplete(ar -> {
      if (ar.failed()) {
        LOG.error("batch not written [store: {}, items: {}, reason: {}]", what, items.size(), ar.cause().getMessage());
      }
      for (Queued<T> q : batch) {
        if (q.waiter() != null) {
          q.waiter().handle(ar);
        }
      }
    });
  }
}
