package io.fleetbus.hub.auth;

import io.fleetbus.shared.files.AtomicFiles;
import io.fleetbus.shared.trust.Digests;
import io.fleetbus.shared.trust.Ed25519Keys;
import io.fleetbus.shared.trust.Pem;
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
import java.security.GeneralSecurityException;
import java.security.KeyPair;
import java.security.KeyPairGenerator;
import java.security.spec.ECGenParameterSpec;
import java.util.List;

/**
 * The hub's keys, each generated on first start into the key folder (owner-only files) unless it is
 * already there: the ES256 pair for user tokens, the Ed25519 pair that signs directives to nodes
 * (nodes pin its public half at enrollment: hubs of one fleet share this folder), and the AES key
 * that seals approvals at rest. Blocking file and key work: main or a worker thread.
 */
public final class HubKeys {
  public static final String ALGORITHM = "ES256";
  private final String privatePem;
  private final String publicPem;
  private final String directivePrivatePem;
  private final String directivePublicPem;
  private final byte[] storeKey;

  private HubKeys(String privatePem, String publicPem, String directivePrivatePem, String directivePublicPem,
                  byte[] storeKey) {
    this.privatePem = privatePem;
    this.publicPem = publicPem;
    this.directivePrivatePem = directivePrivatePem;
    this.directivePublicPem = directivePublicPem;
    this.storeKey = storeKey;
  }

  public static HubKeys loadOrCreate(Path keyDir) throws IOException, GeneralSecurityException {
    AtomicFiles.privateDir(keyDir);
    String[] user = pair(keyDir, "jwt-es256", HubKeys::es256Pair);
    String[] directive = pair(keyDir, "directive-ed25519", Ed25519Keys::generatePem);
    Path store = keyDir.resolve("store-aes256.key");
    if (!Files.exists(store)) {
      AtomicFiles.writePrivate(store, Digests.base64Url(Digests.randomBytes(32)));
    }
    return new HubKeys(user[0], user[1], directive[0], directive[1], Digests.fromBase64Url(Files.readString(store).strip()));
  }

  /** Whether a key folder holds the user-token pair (the token CLI refuses to invent keys). */
  public static boolean present(Path keyDir) {
    return Files.exists(keyDir.resolve("jwt-es256-private.pem")) && Files.exists(keyDir.resolve("jwt-es256-public.pem"));
  }

  private interface PairMaker {
    String[] make() throws GeneralSecurityException;
  }

  private static String[] pair(Path dir, String name, PairMaker maker) throws IOException, GeneralSecurityException {
    Path priv = dir.resolve(name + "-private.pem");
    Path pub = dir.resolve(name + "-public.pem");
    if (Files.exists(priv) && Files.exists(pub)) {
      return new String[] {Files.readString(priv), Files.readString(pub)};
    }
    String[] made = maker.make();
    AtomicFiles.writePrivate(priv, made[0]);
    AtomicFiles.writePrivate(pub, made[1]);
    return made;
  }

  private static String[] es256Pair() throws GeneralSecurityException {
    KeyPairGenerator gen = KeyPairGenerator.getInstance("EC");
    gen.initialize(new ECGenParameterSpec("secp256r1"));
    KeyPair pair = gen.generateKeyPair();
    return new String[] {Pem.encode("PRIVATE KEY", pair.getPrivate().getEncoded()),
      Pem.encode("PUBLIC KEY", pair.getPublic().getEncoded())};
  }

  /** User tokens checked by the default {@link TokenRules}. */
  public UserTokens jwtAuth(Vertx vertx) {
    return jwtAuth(vertx, TokenRules.DEFAULT);
  }

  /**
   * User tokens: the hub's own (as {@link #jwtAuth(Vertx, TokenRules)}) and those of the OpenID Connect issuers
   * {@code identity} names, each checked by the same rules with that issuer's keys.
   */
  public UserTokens jwtAuth(Vertx vertx, TokenRules rules, io.fleetbus.hub.settings.IdentitySettings identity) {
    UserTokens own = jwtAuth(vertx, rules);
    if (identity.issuers().isEmpty()) {
      return own;
    }
    return new UserTokens(own.signatures(), rules, identity.issuers().stream()
      .map(i -> new TrustedIssuer(vertx, i, rules)).toList());
  }

  /** User tokens: {@code rules} first (claims, algorithm, size), then the ES256 signature. */
  public UserTokens jwtAuth(Vertx vertx, TokenRules rules) {
    JWTOptions checks = new JWTOptions().setLeeway((int) rules.skew().toSeconds()).setIssuer(rules.issuer());
    if (!rules.audience().isEmpty()) {
      checks.setAudience(rules.audience());
    }
    return new UserTokens(JWTAuth.create(vertx, new JWTAuthOptions().setJWTOptions(checks)
      .addPubSecKey(new PubSecKeyOptions().setAlgorithm(ALGORITHM).setBuffer(privatePem))
      .addPubSecKey(new PubSecKeyOptions().setAlgorithm(ALGORITHM).setBuffer(publicPem))), rules);
  }

  public String publicPem() {
    return publicPem;
  }

  /** The key nodes check directives with (PEM); handed to each node sealed at enrollment. */
  public String directivePublicPem() {
    return directivePublicPem;
  }

  public DirectiveSigner directiveSigner(long ttlMs) {
    return new DirectiveSigner(Ed25519Keys.privateKey(directivePrivatePem), Ed25519Keys.publicKey(directivePublicPem), ttlMs);
  }

  /** The secret that seals approvals (and anything else the hub keeps at rest that must not be readable). */
  public byte[] storeKey() {
    return storeKey.clone();
  }

  /**
   * A user token with the given subject and roles, issued by the provider's issuer; refused (an
   * IllegalArgumentException) when it would outlive the provider's maximum token lifetime.
   */
  public static String mint(JWTAuth auth, String subject, List<String> roles, long ttlMinutes) {
    TokenRules rules = auth instanceof UserTokens u ? u.rules() : TokenRules.DEFAULT;
    if (ttlMinutes > rules.maxLifetime().toMinutes()) {
      throw new IllegalArgumentException("a token may live at most " + rules.maxLifetime().toMinutes()
        + " minutes (auth.maxTokenLifetimeMinutes), not " + ttlMinutes);
    }
    JWTOptions options = new JWTOptions().setAlgorithm(ALGORITHM).setSubject(subject).setIssuer(rules.issuer())
      .setExpiresInMinutes((int) ttlMinutes);
    if (!rules.audience().isEmpty()) {
      options.setAudience(rules.audience());
    }
    // an id of its own, so this one token can be revoked (RFC 7519 jti)
    return auth.generateToken(new JsonObject().put("roles", new JsonArray(roles))
      .put("jti", java.util.UUID.randomUUID().toString()), options);
  }

  /** Writes a file readable only by its owner (where the file system knows POSIX permissions). */
  public static void writePrivate(Path file, String content) throws IOException {
    AtomicFiles.writePrivate(file, content);
  }
}
