package io.fleetbus.shared.cluster;

import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.core.http.ClientAuth;
import io.vertx.core.json.JsonObject;
import io.vertx.core.net.JksOptions;
import io.vertx.core.net.PfxOptions;
import java.nio.file.Files;
import java.nio.file.Path;

/**
 * Mutual TLS for the event bus, switched on by {@code cluster.tls} in the conf or FLEETBUS_TLS_* variables:
 * every member presents its certificate, accepts only peers its trust store knows, and never trusts all.
 * Stores are PKCS#12 ({@code .p12}/{@code .pfx}) or JKS ({@code .jks}); passwords come from the conf or,
 * better, from FLEETBUS_TLS_KEYSTORE_PASSWORD / FLEETBUS_TLS_TRUSTSTORE_PASSWORD.
 * Hazelcast's own traffic is not covered (open-source edition): the cluster port stays on a private network.
 */
public final class EventBusTls {
  private EventBusTls() {
  }

  /** Switches TLS on in {@code options} when configured; returns whether it did. */
  public static boolean apply(EventBusOptions options, JsonObject cluster) {
    JsonObject tls = cluster.getJsonObject("tls", new JsonObject());
    String keyStore = setting(tls, "keyStore", "FLEETBUS_TLS_KEYSTORE");
    boolean enabled = tls.getBoolean("enabled", keyStore != null);
    if (!enabled) {
      return false;
    }
    String trustStore = setting(tls, "trustStore", "FLEETBUS_TLS_TRUSTSTORE");
    if (keyStore == null || trustStore == null) {
      throw new IllegalArgumentException("cluster.tls needs keyStore and trustStore (or FLEETBUS_TLS_KEYSTORE and"
        + " FLEETBUS_TLS_TRUSTSTORE): every member must present a certificate and know which peers to trust");
    }
    options.setSsl(true)
      .setKeyCertOptions(store(keyStore, setting(tls, "keyStorePassword", "FLEETBUS_TLS_KEYSTORE_PASSWORD")))
      .setTrustOptions(store(trustStore, setting(tls, "trustStorePassword", "FLEETBUS_TLS_TRUSTSTORE_PASSWORD")))
      .setClientAuth(ClientAuth.REQUIRED)
      .setTrustAll(false);
    return true;
  }

  // a generic KeyStoreOptions is lost when the clustered bus copies its options: use the typed ones
  private static io.vertx.core.net.KeyStoreOptionsBase store(String path, String password) {
    if (!Files.isReadable(Path.of(path))) {
      throw new IllegalArgumentException("TLS store " + Path.of(path).toAbsolutePath() + " does not exist or is not readable");
    }
    if (path.toLowerCase(java.util.Locale.ROOT).endsWith(".jks")) {
      return new JksOptions().setPath(path).setPassword(password);
    }
    return new PfxOptions().setPath(path).setPassword(password);
  }

  private static String setting(JsonObject tls, String key, String env) {
    String fromEnv = System.getenv(env);
    if (fromEnv != null && !fromEnv.isBlank()) {
      return fromEnv;
    }
    return tls.getString(key);
  }
}
