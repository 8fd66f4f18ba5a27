package io.fleetbus.shared.edge;

import io.vertx.core.net.JdkSSLEngineOptions;
import java.util.Set;
import javax.net.ssl.SSLException;

/**
 * The first TLS context a Vert.x JVM builds pays for JSSE's set-up and for Vert.x's default cipher list, which
 * initialises a default JDK context and so parses the JDK's ~150 trusted CA certificates: a second or more of CPU (the
 * edge link's first connect blocked its event loop 2.5 s on a loaded machine). Vert.x builds that context on the event
 * loop at the first connect or accept; run {@link #once()} on a worker before ({@code vertx.executeBlocking}), and the
 * event loop finds that work done. The edge link and endpoint pass their handshakes' CPU work (key exchange,
 * certificate checks) to workers as well: {@link #engine()}.
 */
public final class TlsWarmUp {
  private TlsWarmUp() {
  }

  /** Builds (and drops) one client context through Vert.x's own factory: what is cached per JVM stays. */
  public static Void once() throws SSLException {
    new JdkSSLEngineOptions().sslContextFactory().forClient(true).enabledCipherSuites(Set.of()).create();
    return null;
  }

  /** The JDK engine with the handshake's delegated tasks on Vert.x's worker pool instead of the event loop. */
  public static JdkSSLEngineOptions engine() {
    return (JdkSSLEngineOptions) new JdkSSLEngineOptions().setUseWorkerThread(true);
  }
}
