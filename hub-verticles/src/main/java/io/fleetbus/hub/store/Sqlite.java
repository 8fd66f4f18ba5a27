package io.fleetbus.hub.store;

import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.sql.Connection;
import java.sql.DriverManager;
import java.sql.SQLException;
import java.sql.Statement;

/**
 * Opens a connection to the hub's SQLite file the way every store needs it: WAL (readers never block
 * the writer), synchronous=FULL (a committed row survives a power cut), a busy timeout (several stores
 * share the file), and secure_delete (replaced rows are zeroed, not left in free pages).
 */
public final class Sqlite {
  private Sqlite() {
  }

  public static Connection open(Path dbFile) throws SQLException, IOException {
    Files.createDirectories(dbFile.toAbsolutePath().getParent());
    Connection connection = DriverManager.getConnection("jdbc:sqlite:" + dbFile.toAbsolutePath());
    try (Statement s = connection.createStatement()) {
      s.execute("PRAGMA journal_mode=WAL");
      s.execute("PRAGMA synchronous=FULL");
      s.execute("PRAGMA busy_timeout=5000");
      s.execute("PRAGMA secure_delete=ON");
    }
    return connection;
  }
}
