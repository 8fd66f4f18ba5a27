package io.fleetbus.node.edge;

import io.fleetbus.shared.trust.Digests;
import java.security.cert.CertificateException;
import java.security.cert.X509Certificate;
import javax.net.ssl.X509TrustManager;

/**
 * Trusts exactly one server certificate: the hub's edge certificate whose SHA-256 the node pinned at enrollment. No
 * CA, no host name: a certificate that is not that one fails the TLS handshake, so nothing is ever sent to it.
 */
final class PinnedCertificate implements X509TrustManager {
  private final String sha256;

  PinnedCertificate(String sha256) {
    this.sha256 = sha256;
  }

  @Override
  public void checkServerTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    if (chain == null || chain.length == 0) {
      throw new CertificateException("the hub presented no certificate");
    }
    String presented = Digests.hex(Digests.sha256(chain[0].getEncoded()));
    if (!presented.equals(sha256)) {
      throw new CertificateException("the hub's certificate (SHA-256 " + presented + ") is not the one this node pinned ("
        + sha256 + "): refused");
    }
  }

  @Override
  public void checkClientTrusted(X509Certificate[] chain, String authType) throws CertificateException {
    throw new CertificateException("an edge node accepts no connections");
  }

  @Override
  public X509Certificate[] getAcceptedIssuers() {
    return new X509Certificate[0];
  }
}
