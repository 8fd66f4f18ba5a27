package io.fleetbus.hub.auth;

import io.fleetbus.hub.settings.HubSettings;
import io.fleetbus.shared.catalog.Tiers;
import io.fleetbus.shared.cluster.ConfFiles;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Set;

/**
 * Mints a user token with the hub's key (scripts/token.sh):
 * {@code --role admin [--role approver | --role admin,approver] --sub alice --ttl 8h [--conf conf/hub.json | --keys DIR]}.
 * Prints only the token, so {@code TOKEN=$(scripts/token.sh …)} works. Never creates keys: the hub does.
 */
public final class TokenCli {
  static final Set<String> ROLES = Set.of(Tiers.VIEWER, Tiers.OPERATOR, Tiers.ADMIN, Tiers.APPROVER);

  private TokenCli() {
  }

  public static void main(String[] args) {
    try {
      System.out.println(mint(args));
    } catch (IllegalArgumentException e) {
      System.err.println("token: " + e.getMessage());
      System.err.println("usage: token.sh --role viewer|operator|admin|approver[,…] --sub NAME [--ttl 8h] [--conf conf/hub.json | --keys DIR]");
      System.exit(2);
    } catch (Exception e) {
      System.err.println("token: " + e.getMessage());
      System.exit(1);
    }
  }

  static String mint(String[] args) throws Exception {
    List<String> roles = new ArrayList<>();
    String sub = null;
    String ttl = "8h";
    String conf = "conf/hub.json";
    String keys = null;
    for (int i = 0; i < args.length; i++) {
      String value = i + 1 < args.length ? args[i + 1] : null;
      switch (args[i]) {
        case "--role", "--roles" -> roles.addAll(List.of(required(value, args[i]).split(",")));
        case "--sub" -> sub = required(value, "--sub");
        case "--ttl" -> ttl = required(value, "--ttl");
        case "--conf" -> conf = required(value, "--conf");
        case "--keys" -> keys = required(value, "--keys");
        default -> throw new IllegalArgumentException("unknown option " + args[i]);
      }
      i++;
    }
    roles = roles.stream().map(String::strip).filter(r -> !r.isEmpty()).toList();
    if (roles.isEmpty() || !ROLES.containsAll(roles)) {
      throw new IllegalArgumentException("--role must be one or more of " + ROLES + ", not " + roles);
    }
    if (sub == null || sub.isBlank()) {
      throw new IllegalArgumentException("--sub names who the token is for (it is audited)");
    }
    JsonObject hubConf = keys != null && !java.nio.file.Files.exists(Path.of(conf)) ? new JsonObject()
      : ConfFiles.load(new String[] {"-conf", conf}, conf);
    Path keyDir = keys != null ? Path.of(keys) : TrustSettings.fromConf(hubConf, HubSettings.fromConf(hubConf).dataDir()).keysDir();
    TokenRules rules = TokenRules.fromConf(hubConf);
    if (!HubKeys.present(keyDir)) {
      throw new IllegalArgumentException("no hub keys in " + keyDir.toAbsolutePath() + ": start the hub once, or pass --keys");
    }
    long minutes = ttlMinutes(ttl);
    if (minutes > rules.maxLifetime().toMinutes()) {
      throw new IllegalArgumentException("--ttl " + ttl + " is longer than the hub accepts (auth.maxTokenLifetimeMinutes: "
        + rules.maxLifetime().toMinutes() + " minutes)");
    }
    Vertx vertx = Vertx.vertx();
    try {
      return HubKeys.mint(HubKeys.loadOrCreate(keyDir).jwtAuth(vertx, rules), sub, roles, minutes);
    } finally {
      vertx.close();
    }
  }

  /** 90s, 30m, 8h, 7d (whole numbers; at least a minute). */
  static long ttlMinutes(String ttl) {
    if (!ttl.matches("\\d+[smhd]")) {
      throw new IllegalArgumentException("--ttl must look like 30m, 8h or 7d, not '" + ttl + "'");
    }
    long n = Long.parseLong(ttl.substring(0, ttl.length() - 1));
    long minutes = switch (ttl.charAt(ttl.length() - 1)) {
      case 's' -> n / 60;
      case 'm' -> n;
      case 'h' -> n * 60;
      default -> n * 24 * 60;
    };
    if (minutes < 1 || minutes > 366L * 24 * 60) {
      throw new IllegalArgumentException("--ttl must be between 1 minute and a year");
    }
    return minutes;
  }

  private static String required(String value, String option) {
    if (value == null || value.startsWith("--")) {
      throw new IllegalArgumentException(option + " needs a value");
    }
    return value;
  }
}
