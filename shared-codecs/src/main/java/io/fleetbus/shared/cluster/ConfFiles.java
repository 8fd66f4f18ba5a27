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

  public static JsonObject load(String[] args, String defaultPath) {
    String path = null;
    for (int i = 0; i < args.length - 1; i++) {
      if ("-conf".equals(args[i]) || "--conf".equals(args[i])) {
        path = args[i + 1];
      }
    }
    Path file = Path.of(path == null ? defaultPath : path);
    if (!Files.exists(file)) {
      if (path != null) {
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
