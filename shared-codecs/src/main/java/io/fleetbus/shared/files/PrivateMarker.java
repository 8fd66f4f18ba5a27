package io.fleetbus.shared.files;

import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.LinkOption;
import java.nio.file.Path;

/**
 * The file a hub and a node drop in each folder that holds their secrets (data folder, key folder): a node's file tools
 * refuse every path beneath a folder that holds it, their walks prune such folders, and a node's kernel ruleset leaves
 * the ones it knows of out. No conf key lifts this.
 */
public final class PrivateMarker {
  public static final String FILE_NAME = ".fleetbus-private";

  private PrivateMarker() {
  }

  /** Marks {@code dir} (which exists) as a fleetbus private folder; {@code what} says whose, e.g. "hub data folder". */
  public static void mark(Path dir, String what) throws IOException {
    Path marker = dir.resolve(FILE_NAME);
    if (Files.exists(marker, LinkOption.NOFOLLOW_LINKS)) {
      return;
    }
    AtomicFiles.writePrivate(marker, ("fleetbus " + what + ": holds keys, credentials or call records. No fleetbus tool"
      + " reads, lists or writes here, and no process a fleetbus node starts does; no conf key allows it.\n")
      .getBytes(StandardCharsets.UTF_8));
  }

  /** Whether {@code dir} carries the marker (a link named so counts too: refusing more is the safe side). */
  public static boolean marked(Path dir) {
    return Files.exists(dir.resolve(FILE_NAME), LinkOption.NOFOLLOW_LINKS);
  }
}
