package io.fleetbus.hub.store;

import java.sql.Connection;
import java.sql.SQLException;

/** Several statements as one SQLite transaction (one fsync), all or none; the stores' batches are made of these. */
public final class Transactions {
  private Transactions() {
  }

  /** Blocking work on a connection. */
  @FunctionalInterface
  public interface Work<T> {
    T run() throws SQLException;
  }

  /** One change to a store, written as a step of a batch ({@link GroupCommit}): the batch commits or none of it does. */
  @FunctionalInterface
  public interface Step<S> {
    void apply(S store) throws SQLException;
  }

  /** The steps of a batch, in order, in one transaction. */
  public static <S> void steps(Connection connection, S store, java.util.List<Step<S>> steps) throws SQLException {
    inOne(connection, () -> {
      for (Step<S> step : steps) {
        step.apply(store);
      }
      return null;
    });
  }

  /**
   * Runs the work in one transaction; called inside one already (a batch), it is part of that one. The failure thrown
   * is the work's or the commit's own: SQLite ends a transaction by itself on some errors (SQLITE_FULL, SQLITE_IOERR),
   * so the rollback and the return to auto-commit after it may fail with "no transaction is active", which must not
   * hide the cause (issue 34: a full disk was reported as {@code SQLITE_ERROR … no transaction is active}).
   */
  public static <T> T inOne(Connection connection, Work<T> work) throws SQLException {
    if (!connection.getAutoCommit()) {
      return work.run();
    }
    connection.setAutoCommit(false);
    T result;
    try {
      result = work.run();
      connection.commit();
    } catch (SQLException | RuntimeException e) {
      try {
        connection.rollback();
      } catch (SQLException notActive) {
        e.addSuppressed(notActive);
      }
      try {
        connection.setAutoCommit(true);
      } catch (SQLException notActive) {
        e.addSuppressed(notActive);
      }
      throw e;
    }
    connection.setAutoCommit(true);
    return result;
  }
}
