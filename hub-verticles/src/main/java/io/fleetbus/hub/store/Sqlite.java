package io.fleetbus.hub.store;

import io.fleetbus.shared.files.AtomicFiles;
import java.nio.file.attribute.PosixFilePermission;
import java.nio.file.attribute.PosixFilePermissions;
import java.util.Set;
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
    AtomicFiles.privateDir(dbFile.toAbsolutePath().getParent());
    ownerOnly(dbFile);
    Connection connection = DriverManager.getConnection("jdbc:sqlite:" + dbFile.toAbsolutePath());
    try (Statement s = connection.createStatement()) {
      s.execute("PRAGMA journal_mode=WAL");
      s.execute("PRAGMA synchronous=FULL");
      s.execute("PRAGMA busy_timeout=5000");
      s.execute("PRAGMA secure_delete=ON");
    }
    return connection;
  }

  /**
   * The file (made empty if new) readable by its owner only, before SQLite opens it: SQLite gives its -wal and
   * -shm files the database file's permissions. An existing file with wider permissions is narrowed.
   */
  private static void ownerOnly(Path dbFile) throws IOException {
    try {
      Set<PosixFilePermission> owner = PosixFilePermissions.fromString("rw-------");
      if (!Files.exists(dbFile)) {
        Files.createFile(dbFile, PosixFilePermissions.asFileAttribute(owner));
      }
      for (String suffix : new String[] {"", "-wal", "-shm", "-journal"}) {
        Path f = dbFile.resolveSibling(dbFile.getFileName() + suffix);
        if (Files.exists(f) && !Files.getPosixFilePermissions(f).equals(owner)) {
          Files.setPosixFilePermissions(f, owner);
        }
      }
    } catch (UnsupportedOperationException | java.nio.file.FileAlreadyExistsException e) {
      // not a POSIX file system (its own ACLs apply), or another store created it just now
    }
  }
}
