package io.fleetbus.hub.auth;

import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import io.vertx.ext.auth.JWTOptions;
import io.vertx.ext.auth.PubSecKeyOptions;
import io.vertx.ext.auth.jwt.JWTAuth;
import io.vertx.ext.auth.jwt.JWTAuthOptions;
import java.io.IOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.nio.file.attribute.PosixFilePermissions;
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.util.Base64;
import java.util.List;

/**
 * The hub's ES256 key pair for user tokens: read from the data folder, or generated there on first
 * start (files 0600). Blocking file and key work: call from main or a worker thread.
 */
public final class HubKeys {
  public static final String ALGORITHM = "ES256";
  private final String privatePem;
  private final String publicPem;

  private HubKeys(String privatePem, String publicPem) {
    this.privatePem = privatePem;
    this.publicPem = publicPem;
  }

  public static HubKeys loadOrCreate(Path keyDir) throws IOException, GeneralSecurityException {
    Path priv = keyDir.resolve("jwt-es256-private.pem");
    Path pub = keyDir.resolve("jwt-es256-public.pem");
    if (Files.exists(priv) && Files.exists(pub)) {
      return new HubKeys(Files.readString(priv), Files.readString(pub));
    }
    Files.createDirectories(keyDir);
    KeyPairGenerator gen = KeyPairGenerator.getInstance("EC");
    gen.initialize(new ECGenParameterSpec("secp256r1"));
    KeyPair pair = gen.generateKeyPair();
    HubKeys keys = new HubKeys(pem("PRIVATE KEY", pair.getPrivate().getEncoded()),
      pem("PUBLIC KEY", pair.getPublic().getEncoded()));
    writePrivate(priv, keys.privatePem);
    writePrivate(pub, keys.publicPem);
    return keys;
  }

  public JWTAuth jwtAuth(Vertx vertx) {
    return JWTAuth.create(vertx, new JWTAuthOptions()
      .addPubSecKey(new PubSecKeyOptions().setAlgorithm(ALGORITHM).setBuffer(privatePem))
      .addPubSecKey(new PubSecKeyOptions().setAlgorithm(ALGORITHM).setBuffer(publicPem)));
  }

  public String publicPem() {
    return publicPem;
  }

  /** A user token with the given subject and roles. */
  public static String mint(JWTAuth auth, String subject, List<String> roles, long ttlMinutes) {
    return auth.generateToken(new JsonObject().put("roles", new JsonArray(roles)),
      new JWTOptions().setAlgorithm(ALGORITHM).setSubject(subject).setIssuer("fleetbus")
        .setExpiresInMinutes((int) Math.min(Integer.MAX_VALUE, ttlMinutes)));
  }

  /** Writes a file readable only by its owner (where the file system knows POSIX permissions). */
  public static void writePrivate(Path file, String content) throws IOException {
    Path tmp = file.resolveSibling(file.getFileName() + ".tmp");
    Files.deleteIfExists(tmp);
    try {
      Files.createFile(tmp, PosixFilePermissions.asFileAttribute(PosixFilePermissions.fromString("rw-------")));
    } catch (UnsupportedOperationException e) {
      Files.createFile(tmp);
    }
    Files.writeString(tmp, content);
    Files.move(tmp, file, java.nio.file.StandardCopyOption.REPLACE_EXISTING, java.nio.file.StandardCopyOption.ATOMIC_MOVE);
  }

  private static String pem(String type, byte[] der) {
    String b64 = Base64.getMimeEncoder(64, new byte[] {'\n'}).encodeToString(der);
    return "-----BEGIN " + type + "-----\n" + b64 + "\n-----END " + type + "-----\n";
  }
}
