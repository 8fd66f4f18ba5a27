package io.fleetbus.hub.cli;

import io.vertx.core.json.JsonObject;
import java.io.PrintWriter;
import java.nio.charset.StandardCharsets;
import java.util.Base64;
import java.util.List;
import java.util.Map;
import picocli.CommandLine.ArgGroup;
import picocli.CommandLine.Command;
import picocli.CommandLine.Model.CommandSpec;
import picocli.CommandLine.Option;
import picocli.CommandLine.ParameterException;
import picocli.CommandLine.Spec;

/** Revoking user tokens (admin): {@code revoke} one token or a subject's, and the {@code revocations} in force. */
final class RevocationCommands {
  private RevocationCommands() {
  }

  @Command(name = "revoke", description = {"Revoke a user token, or every token of a subject issued until now (admin).",
    "Every hub of the fleet refuses it within seconds, also after a restart; open WebSocket and MCP sessions it covers"
      + " close."})
  static final class Revoke extends CliCommands.Base {
    @ArgGroup(multiplicity = "1")
    What what;
    @Spec
    CommandSpec spec;

    static final class What {
      @Option(names = "--token-id", paramLabel = "JTI", description = "the token's id (its jti claim)")
      String tokenId;
      @Option(names = "--subject", paramLabel = "SUB", description = "every token of this subject (sub claim) issued until"
        + " now")
      String subject;
      @Option(names = "--jwt", paramLabel = "JWT", description = "the token itself: its id is read here, the token is"
        + " not sent")
      String jwt;
    }

    @Override
    public Integer call() {
      JsonObject body = what.subject != null ? new JsonObject().put("subject", what.subject)
        : new JsonObject().put("tokenId", what.tokenId != null ? what.tokenId : tokenIdOf(what.jwt, spec));
      return show(cli.client().post("/api/v1/revocations", body, 0), RevocationCommands::revoked);
    }
  }

  @Command(name = "revocations", description = "The revoked tokens and subjects in force, newest first (admin)")
  static final class Revocations extends CliCommands.Base {
    @Override
    public Integer call() {
      return show(cli.client().get("/api/v1/revocations", Map.of()), RevocationCommands::list);
    }
  }

  /** The {@code jti} of a JWT (its signature is the hub's business); a usage error when it has none. */
  static String tokenIdOf(String jwt, CommandSpec spec) {
    String[] parts = jwt.strip().split("\\.");
    Object id;
    try {
      id = new JsonObject(new String(Base64.getUrlDecoder().decode(parts[1]), StandardCharsets.UTF_8)).getValue("jti");
    } catch (RuntimeException e) {
      throw new ParameterException(spec.commandLine(), "--jwt is not a JWT (three base64url parts)");
    }
    if (id instanceof String s) {
      return s;
    }
    throw new ParameterException(spec.commandLine(), "this token has no id (jti): revoke its subject with --subject");
  }

  static void revoked(PrintWriter out, Text text, JsonObject r) {
    if (r.getString("kind") == null) {
      Text.fields(out, r.getMap());
      return;
    }
    out.println(("token".equals(r.getString("kind")) ? "token " + r.getString("tokenId")
      : "every token of " + r.getString("subject") + " issued until " + text.when(r.getLong("revokedAt")))
      + " revoked (kept until " + text.when(r.getLong("keepUntil")) + ")");
  }

  static void list(PrintWriter out, Text text, JsonObject body) {
    List<JsonObject> all = body.getJsonArray("revocations", new io.vertx.core.json.JsonArray()).stream()
      .map(o -> (JsonObject) o).toList();
    if (all.isEmpty()) {
      out.println("No revocations.");
      return;
    }
    Text.Table t = new Text.Table("kind", "token or subject", "revoked", "by", "kept until");
    for (JsonObject r : all) {
      t.row(r.getString("kind"), "token".equals(r.getString("kind")) ? r.getString("tokenId") : r.getString("subject"),
        text.when(r.getLong("revokedAt")), Text.orDash(r.getString("by")), text.when(r.getLong("keepUntil")));
    }
    t.print(out);
  }
}
