package io.fleetbus.hub.edge;

import io.fleetbus.shared.files.AtomicFiles;
import io.fleetbus.shared.trust.Digests;
import io.fleetbus.shared.trust.Pem;
import io.vertx.core.buffer.Buffer;
import io.vertx.core.net.PemKeyCertOptions;
import java.io.ByteArrayInputStream;
import java.io.IOException;
import java.math.BigInteger;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.cert.CertificateFactory;
import java.security.cert.X509Certificate;
import java.time.Duration;
import java.time.Instant;
import java.util.Date;
import org.bouncycastle.asn1.x500.X500Name;
import org.bouncycastle.cert.jcajce.JcaX509CertificateConverter;
import org.bouncycastle.cert.jcajce.JcaX509v3CertificateBuilder;
import org.bouncycastle.operator.OperatorCreationException;
import org.bouncycastle.operator.jcajce.JcaContentSignerBuilder;

/**
 * The certificate a hub's edge endpoint presents. Edge nodes do not trust it through a CA: they pin its SHA-256
 * fingerprint, given at enrollment ({@code edgeCertSha256}). Made once per hub (EC P-256, self-signed, ten years) in
 * the hub's key folder, or taken from {@code edge.certPem}/{@code edge.keyPem} where an operator supplies one.
 */
public final class EdgeCertificate {
  private static final String CERT_FILE = "edge-cert.pem";
  private static final String KEY_FILE = "edge-key.pem";

  private final String certPem;
  private final String keyPem;
  private final String sha256;

  private EdgeCertificate(String certPem, String keyPem) throws GeneralSecurityException {
    this.certPem = certPem;
    this.keyPem = keyPem;
    this.sha256 = fingerprint(certPem);
  }

  /** The hub's certificate in {@code keysDir}, made there the first time. */
  public static EdgeCertificate loadOrCreate(Path keysDir, String hubName) throws IOException, GeneralSecurityException {
    Path cert = keysDir.resolve(CERT_FILE);
    Path key = keysDir.resolve(KEY_FILE);
    if (!Files.exists(cert) || !Files.exists(key)) {
      String[] made = selfSigned(hubName);
      AtomicFiles.writePrivate(key, made[1]);
      AtomicFiles.writePrivate(cert, made[0]);
    }
    return new EdgeCertificate(Files.readString(cert), Files.readString(key));
  }

  /** Hex SHA-256 of the certificate's DER form: what an edge node pins. */
  public String sha256() {
    return sha256;
  }

  public PemKeyCertOptions keyCert() {
    return new PemKeyCertOptions().setCertValue(Buffer.buffer(certPem)).setKeyValue(Buffer.buffer(keyPem));
  }

  /** Hex SHA-256 of the DER form of the first certificate in {@code pem}. */
  public static String fingerprint(String pem) throws GeneralSecurityException {
    X509Certificate cert = (X509Certificate) CertificateFactory.getInstance("X.509")
      .generateCertificate(new ByteArrayInputStream(pem.getBytes(java.nio.charset.StandardCharsets.US_ASCII)));
    return Digests.hex(Digests.sha256(cert.getEncoded()));
  }

  private static String[] selfSigned(String hubName) throws GeneralSecurityException {
    KeyPairGenerator gen = KeyPairGenerator.getInstance("EC");
    gen.initialize(256);
    KeyPair pair = gen.generateKeyPair();
    X500Name name = new X500Name("CN=" + hubName.replaceAll("[^A-Za-z0-9_.-]", "-") + ",O=fleetbus edge");
    Instant now = Instant.now();
    try {
      X509Certificate cert = new JcaX509CertificateConverter().getCertificate(new JcaX509v3CertificateBuilder(name,
        new BigInteger(64, new java.security.SecureRandom()), Date.from(now.minus(Duration.ofDays(1))),
        Date.from(now.plus(Duration.ofDays(3650))), name, pair.getPublic())
        .build(new JcaContentSignerBuilder("SHA256withECDSA").build(pair.getPrivate())));
      return new String[] {Pem.encode("CERTIFICATE", cert.getEncoded()),
        Pem.encode("PRIVATE KEY", pair.getPrivate().getEncoded())};
    } catch (OperatorCreationException e) {
      throw new GeneralSecurityException("cannot sign the edge certificate: " + e.getMessage(), e);
    }
  }
}
