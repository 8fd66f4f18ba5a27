package io.fleetbus.hub.cluster;

import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.EntryEvent;
import com.hazelcast.map.IMap;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.map.listener.EntryUpdatedListener;
import io.fleetbus.hub.auth.DirectiveSigner;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.fault.FaultSwitch;
import io.fleetbus.shared.files.AtomicFiles;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.security.SecureRandom;
import java.util.HexFormat;
import java.util.Map;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which fleet this hub belongs to (issue 15): an id made at the first start and kept with the fleet's keys (every
 * hub of a fleet shares its keys folder, so every hub of a fleet has the same id). The cluster name defaults to
 * {@code fleetbus-<fleetId>}, so two fleets on one network never merge by default; and a hub that finds another
 * fleet's hub in its cluster (someone gave both the same cluster name) stops before it touches the fleet's shared
 * state, naming both fleets and the fix.
 */
public final class FleetIdentity {
  private static final Logger LOG = LoggerFactory.getLogger(FleetIdentity.class);
  private static final String FILE = "fleet-id";
  /** Plain (not secret) map: cluster member id → fleet id of every hub in the cluster. */
  static final String HUBS_MAP = "fleetbus.hubs";
  /** Hub-local map where /ready and the enrollment answer read this hub's fleet id and cluster name. */
  public static final String LOCAL_MAP = "fleetbus.fleet";

  /** Fault switch for tests: the behaviour before issue 15 (every hub "fleetbus" by default, no check of other hubs). */
  private static final boolean OFF = FaultSwitch.NO_FLEET_IDENTITY.on();
  /**
   * Fault switch for tests: the behaviour before issue 32 (any unverifiable hub entry stops a starting hub; this hub's
   * own entry, once removed or overwritten, stays so).
   */
  private static final boolean STRICT_CLAIMS = FaultSwitch.NO_SHARED_FRESHNESS.on();
  private static final String DEFAULT_PREFIX = "fleetbus-";

  private final String fleetId;

  private FleetIdentity(String fleetId) {
    this.fleetId = fleetId;
  }

  /** The fleet id kept in {@code keysDir}, made now when there is none yet. */
  public static FleetIdentity loadOrCreate(Path keysDir) throws IOException {
    Path file = keysDir.resolve(FILE);
    if (Files.exists(file)) {
      String id = Files.readString(file, StandardCharsets.UTF_8).strip();
      if (!id.matches("[0-9a-f]{12}")) {
        throw new IOException("the fleet id in " + file + " is not 12 lowercase hex digits; restore it from a backup of the"
          + " keys folder (every hub of the fleet has the same one)");
      }
      return new FleetIdentity(id);
    }
    byte[] random = new byte[6];
    new SecureRandom().nextBytes(random);
    String id = HexFormat.of().formatHex(random);
    AtomicFiles.privateDir(keysDir);
    AtomicFiles.writePrivate(file, id + "\n");
    LOG.info("new fleet [fleetId: {}]", id);
    return new FleetIdentity(id);
  }

  public String fleetId() {
    return fleetId;
  }

  /** The cluster name a hub uses when its conf and environment name none. */
  public String defaultClusterName() {
    return DEFAULT_PREFIX + fleetId;
  }

  /**
   * The conf with the fleet's default cluster name filled in, unless {@code cluster.name} or
   * {@code FLEETBUS_CLUSTER_NAME} names one.
   */
  public JsonObject withDefaultClusterName(JsonObject conf) {
    String env = System.getenv("FLEETBUS_CLUSTER_NAME");
    JsonObject cluster = conf.getJsonObject("cluster", new JsonObject());
    if ((env != null && !env.isBlank()) || cluster.getValue("name") != null) {
      return conf;
    }
    return conf.copy().put("cluster", cluster.copy().put("name", OFF ? "fleetbus" : defaultClusterName()));
  }

  /**
   * Announces this hub's fleet in the cluster and checks that every other hub in it is of the same fleet; fails
   * (with what to do) when one is not. Afterwards, a hub of another fleet that joins is reported at ERROR (it stops
   * itself). Blocking (Hazelcast calls): run it off the event loop.
   */
  public void claim(Vertx vertx, HazelcastInstance hz, DirectiveSigner signer) {
    String self = hz.getCluster().getLocalMember().getUuid().toString();
    String clusterName = hz.getConfig().getClusterName();
    IMap<String, String> hubs = hz.getMap(HUBS_MAP);
    vertx.sharedData().getLocalMap(LOCAL_MAP).put("fleetId", fleetId);
    vertx.sharedData().getLocalMap(LOCAL_MAP).put("clusterName", clusterName);
    // announced first (signed with the fleet's directive key, so no other member can claim to be a hub of this fleet;
    // nodes send only to members so announced), so a hub already in the cluster hears of this one even when this one
    // has to stop
    // with where this hub's event bus listens, proven: nodes use it, not the cluster registry's entry anyone can rewrite
    String statement = announce(vertx, hubs, self, signer);
    if (OFF) {
      return;
    }
    reannounceAfterMerges(vertx, hz, signer);
    Set<String> members = hz.getCluster().getMembers().stream().map(m -> m.getUuid().toString()).collect(Collectors.toSet());
    Map<String, String> foreign = hubs.entrySet().stream()
      .filter(e -> members.contains(e.getKey()) && !e.getKey().equals(self) && !isHubOfThisFleet(signer, e.getKey(), e.getValue()))
      .collect(Collectors.toMap(Map.Entry::getKey, e -> claimedFleet(e.getValue())));
    // any member can write any entry here, and no entry of another fleet can be checked (it is signed with that fleet's
    // key): an unverifiable entry stops this hub only where the claim names the fleet whose default cluster name this
    // hub was given — then this hub is the one in the wrong cluster (issue 32: a junk entry stops no hub)
    foreign.entrySet().removeIf(e -> !STRICT_CLAIMS && !(FleetIdentity.DEFAULT_PREFIX + e.getValue()).equals(clusterName)
      && unverifiedClaim(clusterName, e.getKey(), e.getValue()));
    if (!foreign.isEmpty()) {
      hubs.remove(self);
      throw FailureCode.CONFLICT.exception("another fleet's hub is in this cluster (cluster name '" + clusterName
        + "'): this hub is fleet " + fleetId + ", member " + foreign.keySet().iterator().next() + " is a hub of fleet "
        + foreign.values().iterator().next() + ". Two fleets must not share a cluster name: give this hub its own"
        + " (conf cluster.name or FLEETBUS_CLUSTER_NAME; by default a hub uses fleetbus-<fleetId>) or, if it belongs to"
        + " that fleet, give it that fleet's keys folder (keysDir). This hub stops; the other fleet is left as it was");
    }
    // where the other hubs' event buses listen, as their statements prove it (issue 32: hub to hub, not the registry)
    io.fleetbus.shared.cluster.MemberPins pins = io.fleetbus.shared.cluster.MemberPins.of(vertx);
    // listening before reading: a hub that announces itself between the two is heard by one of them
    hubs.addEntryListener(new ForeignHubAlarm(fleetId, clusterName, signer, (member, st) -> provenHub(signer, member, st,
      pins)), true);
    hubs.forEach((member, st) -> provenHub(signer, member, st, pins));
    if (!STRICT_CLAIMS) {
      hubs.addEntryListener(new OwnEntryKeeper(hubs, self, statement), self, true);
    }
    LOG.info("fleet claimed [fleetId: {}, cluster: {}, hubs: {}]", fleetId, clusterName,
      hubs.keySet().stream().filter(members::contains).count());
  }

  /** Puts this hub's signed statement (member, fleet, event-bus address) under {@code member}; returns it. */
  private String announce(Vertx vertx, IMap<String, String> hubs, String member, DirectiveSigner signer) {
    io.vertx.core.spi.cluster.ClusterManager cm = ((io.vertx.core.internal.VertxInternal) vertx).clusterManager();
    io.vertx.core.spi.cluster.NodeInfo bus = cm == null ? null : cm.getNodeInfo();
    String statement = signer.signStatement(new JsonObject().put("member", member).put("fleetId", fleetId)
      .put("bus", bus == null ? null : bus.host() + ":" + bus.port()));
    hubs.put(member, statement);
    return statement;
  }

  /**
   * A hub whose half of a split cluster merges into the other half rejoins under a new member id (issue 34): it
   * announces itself again, signed, under that id, so the other hubs know it for a hub of this fleet by its proof
   * (not an intruder) and the nodes send to it again, without a restart.
   */
  private void reannounceAfterMerges(Vertx vertx, HazelcastInstance hz, DirectiveSigner signer) {
    if (FaultSwitch.SLOW_SPLIT_HEALING.on()) {
      return;
    }
    hz.getLifecycleService().addLifecycleListener(event -> {
      if (event.getState() != com.hazelcast.core.LifecycleEvent.LifecycleState.MERGED) {
        return;
      }
      vertx.executeBlocking(() -> {
        String self = hz.getCluster().getLocalMember().getUuid().toString();
        announce(vertx, hz.getMap(HUBS_MAP), self, signer);
        LOG.warn("rejoined the fleet's cluster after a split healed; announced again as its hub [member: {}]", self);
        return null;
      }, false).onFailure(err -> LOG.error("not announced again after a split healed [reason: {}]", err.getMessage()));
    });
  }

  /** Whether {@code statement} is this fleet's signed word that {@code member} is one of its hubs. */
  public boolean isHubOfThisFleet(DirectiveSigner signer, String member, String statement) {
    JsonObject claims = statement == null ? null : signer.verifyStatement(statement);
    return claims != null && member.equals(claims.getString("member")) && fleetId.equals(claims.getString("fleetId"));
  }

  private void provenHub(DirectiveSigner signer, String member, String statement,
                         io.fleetbus.shared.cluster.MemberPins pins) {
    JsonObject claims = statement == null ? null : signer.verifyStatement(statement);
    if (claims != null && member.equals(claims.getString("member")) && fleetId.equals(claims.getString("fleetId"))) {
      pins.hubBus(member, claims.getString("bus"));
    }
  }

  /** An entry that stops no hub: logged, and the member is reported as an intruder by the cluster view. */
  private static boolean unverifiedClaim(String clusterName, String member, String fleet) {
    LOG.error("a member claims to be a hub of another fleet, unverifiable [cluster: {}, member: {}, its claim: {}]: this"
      + " hub starts all the same and takes nothing from it; if it is a hub of another fleet, give one of the fleets"
      + " another cluster name (conf cluster.name or FLEETBUS_CLUSTER_NAME)", clusterName, member, fleet);
    return true;
  }

  /** The fleet a hub entry claims (read without checking: another fleet signs with its own key). */
  static String claimedFleet(String statement) {
    try {
      String payload = statement.substring(statement.indexOf('.') + 1, statement.lastIndexOf('.'));
      return new JsonObject(new String(java.util.Base64.getUrlDecoder().decode(payload), StandardCharsets.UTF_8))
        .getString("fleetId", "?");
    } catch (RuntimeException e) {
      return "? (an entry that is no hub statement)";
    }
  }

  /** Puts this hub's own entry back when another member removes or overwrites it (nodes find hubs by these entries). */
  private record OwnEntryKeeper(IMap<String, String> hubs, String self, String statement)
    implements EntryUpdatedListener<String, String>, com.hazelcast.map.listener.EntryRemovedListener<String, String> {
    @Override
    public void entryUpdated(EntryEvent<String, String> e) {
      if (!statement.equals(e.getValue())) {
        restore(e);
      }
    }

    @Override
    public void entryRemoved(EntryEvent<String, String> e) {
      restore(e);
    }

    private void restore(EntryEvent<String, String> e) {
      if (e.getMember() != null && e.getMember().localMember()) {
        return; // this hub's own change (it leaves the cluster)
      }
      LOG.warn("this hub's entry in {} was changed by member {}: put back", HUBS_MAP, e.getMember());
      hubs.setAsync(self, statement);
    }
  }

  /** Logs a hub of another fleet (or a member posing as a hub) that appears in this cluster. */
  private record ForeignHubAlarm(String fleetId, String clusterName, DirectiveSigner signer,
                                 java.util.function.BiConsumer<String, String> proven)
    implements EntryAddedListener<String, String>, EntryUpdatedListener<String, String> {
    @Override
    public void entryAdded(EntryEvent<String, String> e) {
      seen(e);
    }

    @Override
    public void entryUpdated(EntryEvent<String, String> e) {
      seen(e);
    }

    private void seen(EntryEvent<String, String> e) {
      proven.accept(e.getKey(), e.getValue());
      JsonObject claims = e.getValue() == null ? null : signer.verifyStatement(e.getValue());
      if (claims == null || !e.getKey().equals(claims.getString("member")) || !fleetId.equals(claims.getString("fleetId"))) {
        LOG.error("a hub of another fleet joined this cluster [cluster: {}, member: {}, its fleet: {}, this fleet: {}]: it"
          + " should stop by itself; give one of the fleets another cluster name", clusterName, e.getKey(),
          claimedFleet(String.valueOf(e.getValue())), fleetId);
      }
    }
  }
}
