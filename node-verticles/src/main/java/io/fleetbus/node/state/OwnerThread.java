package io.fleetbus.node.state;

import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import java.util.concurrent.Callable;
import java.util.concurrent.CompletableFuture;
import java.util.concurrent.ExecutionException;
import java.util.concurrent.Future;
import java.util.concurrent.RejectedExecutionException;
import java.util.concurrent.ScheduledFuture;
import java.util.concurrent.ScheduledThreadPoolExecutor;
import java.util.concurrent.TimeUnit;
import java.util.concurrent.TimeoutException;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The one thread that owns a component's state: every change runs on it, in order, so the state
 * needs no locks. It lives as long as the node, independent of any Vert.x instance, so supervision
 * goes on while the node has no cluster. Tasks may block briefly (file writes, a SIGTERM grace).
 */
public final class OwnerThread implements AutoCloseable {
  private static final Logger LOG = LoggerFactory.getLogger(OwnerThread.class);
  private static final long CALL_TIMEOUT_MS = 30_000;

  private final String name;
  private final ScheduledThreadPoolExecutor executor;
  private volatile Thread thread;

  public OwnerThread(String name) {
    this.name = name;
    this.executor = new ScheduledThreadPoolExecutor(1, r -> {
      Thread t = new Thread(r, name);
      t.setDaemon(true);
      thread = t;
      return t;
    });
    executor.setRemoveOnCancelPolicy(true);
    executor.setExecuteExistingDelayedTasksAfterShutdownPolicy(false);
  }

  /** Runs {@code task} on the owner thread and waits for its result; a {@link FleetException} passes through as it is. */
  public <T> T call(Callable<T> task) throws Exception {
    if (Thread.currentThread() == thread) {
      return task.call();
    }
    Future<T> f;
    try {
      f = executor.submit(task);
    } catch (RejectedExecutionException e) {
      throw FailureCode.TOOL_FAILED.exception(name + " is shutting down");
    }
    try {
      return f.get(CALL_TIMEOUT_MS, TimeUnit.MILLISECONDS);
    } catch (ExecutionException e) {
      throw e.getCause() instanceof Exception ex ? ex : new IllegalStateException(e.getCause());
    } catch (TimeoutException e) {
      f.cancel(false);
      throw FailureCode.TOOL_FAILED.exception(name + " did not answer within " + CALL_TIMEOUT_MS + " ms; try again");
    }
  }

  /** Runs {@code task} on the owner thread without waiting: the future completes with its result. */
  public <T> CompletableFuture<T> supply(Callable<T> task) {
    CompletableFuture<T> result = new CompletableFuture<>();
    try {
      executor.execute(() -> {
        try {
          result.complete(task.call());
        } catch (Exception | Error e) {
          result.completeExceptionally(e);
        }
      });
    } catch (RejectedExecutionException e) {
      result.completeExceptionally(FailureCode.TOOL_FAILED.exception(name + " is shutting down"));
    }
    return result;
  }

  /** Queues {@code task}; ignored once closed (a late process exit after shutdown, say). */
  public void execute(Runnable task) {
    try {
      executor.execute(guarded(task));
    } catch (RejectedExecutionException e) {
      LOG.debug("{} is closed: task dropped", name);
    }
  }

  public ScheduledFuture<?> schedule(Runnable task, long delayMs) {
    return executor.schedule(guarded(task), delayMs, TimeUnit.MILLISECONDS);
  }

  public void every(long periodMs, Runnable task) {
    executor.scheduleWithFixedDelay(guarded(task), periodMs, periodMs, TimeUnit.MILLISECONDS);
  }

  public boolean isCurrent() {
    return Thread.currentThread() == thread;
  }

  private Runnable guarded(Runnable task) {
    // an exception would silently cancel a periodic task: log it and carry on
    return () -> {
      try {
        task.run();
      } catch (RuntimeException e) {
        LOG.error("{} task failed", name, e);
      }
    };
  }

  /** Stops the thread; what it supervises (child processes) is left alone. */
  @Override
  public void close() {
    // let a task under way finish its file write; an interrupt would abandon it half done
    executor.shutdown();
    try {
      if (!executor.awaitTermination(5, TimeUnit.SECONDS)) {
        executor.shutdownNow();
      }
    } catch (InterruptedException e) {
      executor.shutdownNow();
      Thread.currentThread().interrupt();
    }
  }
}
