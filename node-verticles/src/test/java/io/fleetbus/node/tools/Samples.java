package io.fleetbus.node.tools;

import java.io.IOException;
import java.io.InputStream;
import java.io.UncheckedIOException;
import java.nio.charset.StandardCharsets;

/** Captured host command outputs committed under src/test/resources/samples. */
public final class Samples {
  private Samples() {
  }

  public static String read(String name) {
    try (InputStream in = Samples.class.getResourceAsStream("/samples/" + name)) {
      if (in == null) {
        throw new IllegalStateException("missing sample " + name);
      }
      return new String(in.readAllBytes(), StandardCharsets.UTF_8);
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }
}
