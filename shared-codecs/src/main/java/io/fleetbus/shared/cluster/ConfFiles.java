package io.fleetbus.shared.cluster;

import io.vertx.core.json.DecodeException;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;

/** Reads the JSON conf file named by {@code -conf PATH} (or the default path) for a launcher. */
public final class ConfFiles {
  private ConfFiles() {
  }

  private static String named(String[] args) {
    String path = null;
    for (int i = 0; i < args.length - 1; i++) {
      if ("-conf".equals(args[i]) || "--conf".equals(args[i])) {
        path = args[i + 1];
      }
    }
    return path;
  }

  /** The conf file named by {@code -conf PATH}, or the default path. */
  public static Path path(String[] args, String defaultPath) {
    String path = named(args);
    return Path.of(path == null ? defaultPath : path);
  }

  /** The conf; a missing default file means "all defaults", a missing named file is an error. */
  public static JsonObject load(String[] args, String defaultPath) {
    Path file = path(args, defaultPath);
    if (!Files.exists(file)) {
      if (named(args) != null) {
        throw new IllegalArgumentException("conf file " + file.toAbsolutePath() + " does not exist");
      }
      return new JsonObject();
    }
    try {
      return new JsonObject(Files.readString(file));
    } catch (IOException e) {
      throw new IllegalArgumentException("cannot read conf file " + file.toAbsolutePath() + ": " + e.getMessage(), e);
    } catch (DecodeException e) {
      throw new IllegalArgumentException("conf file " + file.toAbsolutePath() + " is not valid JSON: " + e.getMessage(), e);
    }
  }
}
