package io.fleetbus.hub.cluster;

import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.HazelcastInstance;
import io.fleetbus.shared.cluster.MemberPins;
import io.fleetbus.shared.fault.FaultSwitch;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.atomic.AtomicLong;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Who is in the cluster (issue 15, part 5): each member is a hub of this fleet (it announced this fleet's id), the
 * member of a node that proved itself (its hello), or unknown. A member still unknown {@value #GRACE_MS} ms after it
 * joined is an intruder: reported at WARN (once), counted, listed by {@code GET /api/v1/cluster} and shown as a
 * banner on the dashboard. It is never selected for a node's messages anyway (member pinning).
 */
public final class IntruderWatch {
  private static final Logger LOG = LoggerFactory.getLogger(IntruderWatch.class);
  static final long GRACE_MS = 10_000;
  /** Fault switch for tests: no member is ever judged (the behaviour before issue 15). */
  private static final boolean OFF = FaultSwitch.NO_INTRUDER_WATCH.on();

  private final Vertx vertx;
  private final HazelcastInstance hz;
  private final FleetIdentity fleet;
  private final io.fleetbus.hub.auth.DirectiveSigner signer;
  private final MemberPins pins;
  private final Map<String, Long> joinedAt = new ConcurrentHashMap<>();
  private final Map<String, Boolean> reported = new ConcurrentHashMap<>();
  private final AtomicLong intrudersSeen = new AtomicLong();

  public IntruderWatch(Vertx vertx, HazelcastInstance hz, FleetIdentity fleet, io.fleetbus.hub.auth.DirectiveSigner signer,
                       MemberPins pins) {
    this.vertx = vertx;
    this.hz = hz;
    this.fleet = fleet;
    this.signer = signer;
    this.pins = pins;
  }

  /** Watches members joining from now on, and judges those already here after the grace. */
  public void start() {
    if (OFF) {
      return;
    }
    long now = System.currentTimeMillis();
    hz.getCluster().getMembers().forEach(m -> joinedAt.putIfAbsent(m.getUuid().toString(), now));
    vertx.setTimer(GRACE_MS, t -> judgeAll());
    hz.getCluster().addMembershipListener(new MembershipListener() {
      @Override
      public void memberAdded(MembershipEvent event) {
        String id = event.getMember().getUuid().toString();
        joinedAt.put(id, System.currentTimeMillis());
        vertx.setTimer(GRACE_MS, t -> judge(event.getMember()));
      }

      @Override
      public void memberRemoved(MembershipEvent event) {
        String id = event.getMember().getUuid().toString();
        joinedAt.remove(id);
        reported.remove(id);
      }
    });
  }

  /** Intruders reported since the hub started. */
  public long intrudersSeen() {
    return intrudersSeen.get();
  }

  private void judgeAll() {
    hz.getCluster().getMembers().forEach(this::judge);
  }

  private void judge(Member m) {
    JsonObject seen = describe(m, System.currentTimeMillis());
    if (seen.getBoolean("intruder") && reported.putIfAbsent(seen.getString("member"), Boolean.TRUE) == null) {
      intrudersSeen.incrementAndGet();
      LOG.warn("intruder in the cluster: a member that is neither a hub of this fleet nor a proven node's [member: {},"
        + " address: {}, joined: {} s ago]: it receives nothing meant for a node; find and stop it, or give the fleet"
        + " another cluster name", seen.getString("member"), seen.getString("address"),
        seen.getLong("joinedSecondsAgo"));
    }
  }

  private JsonObject describe(Member m, long now) {
    String id = m.getUuid().toString();
    Object statement = hz.getMap(FleetIdentity.HUBS_MAP).get(id);
    // a hub only by this fleet's signed word (anyone may write to the map)
    boolean hub = m.localMember() || statement instanceof String st && fleet.isHubOfThisFleet(signer, id, st);
    List<String> nodes = pins.nodesOn(id);
    String role = hub ? "hub" : !nodes.isEmpty() ? "node" : "unknown";
    long since = now - joinedAt.getOrDefault(id, now);
    JsonObject j = new JsonObject().put("member", id).put("address", m.getAddress().toString()).put("role", role)
      .put("lite", m.isLiteMember()).put("joinedSecondsAgo", since / 1000).put("self", m.localMember())
      .put("intruder", !OFF && "unknown".equals(role) && since >= GRACE_MS);
    if (hub) {
      j.put("fleetId", fleet.fleetId());
    }
    if (!nodes.isEmpty()) {
      j.put("nodes", new JsonArray(nodes));
    }
    return j;
  }

  /** Every member as this hub sees it now, and the intruders among them. Blocking (Hazelcast map reads): a worker. */
  public JsonObject snapshot() {
    long now = System.currentTimeMillis();
    JsonArray members = new JsonArray();
    hz.getCluster().getMembers().forEach(m -> members.add(describe(m, now)));
    long intruders = members.stream().map(JsonObject.class::cast).filter(j -> j.getBoolean("intruder")).count();
    return new JsonObject().put("cluster", hz.getConfig().getClusterName()).put("fleetId", fleet.fleetId())
      .put("members", members).put("intruders", intruders);
  }
}
