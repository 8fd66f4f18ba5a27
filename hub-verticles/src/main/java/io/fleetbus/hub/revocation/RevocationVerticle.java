package io.fleetbus.hub.revocation;

import io.fleetbus.hub.audit.AuditEntry;
import io.fleetbus.hub.auth.Revocation;
import io.fleetbus.hub.auth.RevocationList;
import io.fleetbus.hub.cluster.FleetState;
import io.fleetbus.hub.cluster.SharedMap;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.Future;
import io.vertx.core.VerticleBase;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.nio.file.Path;
import java.time.Duration;
import java.util.List;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Owns the hub's revoked user tokens, served as {@link RevocationService}: each revocation goes into the
 * {@link RevocationList} every token check reads, the hub's SQLite file (restarts) and the fleet's sealed shared map
 * (the other hubs: they listen and take it in within about a second), and is published hub-locally
 * ({@link Revocation#REVOKED}) so open WebSocket and MCP sessions it covers close. At start the stored and the shared
 * revocations are merged both ways, so a hub that was down when one was made refuses it too.
 */
public final class RevocationVerticle extends VerticleBase implements RevocationService {
  private static final Logger LOG = LoggerFactory.getLogger(RevocationVerticle.class);
  private static final int MAX_VALUE_CHARS = 256;
  private static final long PURGE_MS = 10 * 60_000L;

  private final Path dbFile;
  private final RevocationList list;
  private final long keepMs;
  private final SharedMap shared;
  private RevocationStore store;

  /**
   * @param keep  how long a revocation is kept: the longest a token it revokes may still be valid (the hub's maximum
   *              token lifetime plus clock skew)
   * @param fleet the fleet's shared maps; null for a hub that shares nothing
   */
  public RevocationVerticle(Path dbFile, RevocationList list, Duration keep, FleetState fleet) {
    this.dbFile = dbFile;
    this.list = list;
    this.keepMs = keep.toMillis();
    this.shared = fleet == null ? null : fleet.map(FleetState.REVOCATIONS);
  }

  @Override
  public Future<?> start() {
    return vertx.executeBlocking(() -> {
      store = new RevocationStore(dbFile);
      return store.load(System.currentTimeMillis());
    }, true).compose(stored -> {
      stored.forEach(list::add);
      LOG.info("revocations loaded [count: {}]", stored.size());
      vertx.setPeriodic(PURGE_MS, t -> list.inForce(System.currentTimeMillis()));
      return join(stored);
    }).compose(v -> RevocationBus.serve(vertx, this));
  }

  @Override
  public Future<?> stop() {
    return store == null ? Future.succeededFuture() : vertx.executeBlocking(() -> {
      store.close();
      return null;
    }, true);
  }

  /** Takes in the fleet's revocations (now and as other hubs make them) and offers the fleet the ones only we kept. */
  private Future<Void> join(List<Revocation> stored) {
    if (shared == null) {
      return Future.succeededFuture();
    }
    shared.listen(context, (key, value) -> {
      if (value != null) {
        take(Revocation.fromJson(value)).onFailure(err -> LOG.error("cannot store a revocation made by another hub"
          + " [key: {}]", key, err));
      }
    });
    return shared.entries(context).compose(entries -> {
      java.util.Map<String, Long> known = new java.util.HashMap<>();
      Future<Void> done = Future.succeededFuture();
      for (SharedMap.Entry e : entries) {
        Revocation theirs = Revocation.fromJson(e.value());
        known.put(e.key(), theirs.revokedAt());
        done = done.compose(v -> take(theirs));
      }
      long now = System.currentTimeMillis();
      for (Revocation ours : stored) {
        if (known.getOrDefault(ours.key(), Long.MIN_VALUE) < ours.revokedAt() && ours.keepUntil() > now) {
          done = done.compose(v -> shared.set(context, ours.key(), ours.toJson(), ours.keepUntil() - now));
        }
      }
      return done;
    });
  }

  /** A revocation from elsewhere (another hub): stored and in force here, open sessions it covers closed. */
  private Future<Void> take(Revocation r) {
    return vertx.executeBlocking(() -> {
      store.save(r);
      return null;
    }, true).<Void>map(v -> {
      enforce(r);
      return null;
    });
  }

  private Revocation enforce(Revocation r) {
    Revocation now = list.add(r);
    vertx.eventBus().publish(Revocation.REVOKED, now.toJson());
    return now;
  }

  @Override
  public Future<JsonObject> revoke(Revocation.Kind kind, String value, String by) {
    String field = kind == Revocation.Kind.TOKEN ? "tokenId" : "subject";
    if (value == null || value.isBlank() || value.length() > MAX_VALUE_CHARS || value.chars().anyMatch(Character::isISOControl)) {
      return Future.failedFuture(FailureCode.BAD_REQUEST.exception(field + " must be 1 to " + MAX_VALUE_CHARS
        + " printable characters"));
    }
    long now = System.currentTimeMillis();
    Revocation r = new Revocation(kind, value, now, now + keepMs, by);
    return vertx.executeBlocking(() -> {
      store.save(r);
      return null;
    }, true).compose(v -> {
      Revocation inForce = enforce(r);
      LOG.info("token revoked [{}: {}, by: {}]", field, value, by);
      AuditEntry.admin(by, "revoke_" + kind.label(), null, new JsonObject().put(field, value), null, null).send(vertx);
      Future<Void> fleet = shared == null ? Future.succeededFuture() : shared.set(context, r.key(), inForce.toJson(), keepMs);
      return fleet.map(x -> inForce.toJson());
    });
  }

  @Override
  public Future<JsonObject> list() {
    JsonArray out = new JsonArray();
    list.inForce(System.currentTimeMillis()).forEach(r -> out.add(r.toJson()));
    return Future.succeededFuture(new JsonObject().put("revocations", out).put("count", out.size()));
  }
}
