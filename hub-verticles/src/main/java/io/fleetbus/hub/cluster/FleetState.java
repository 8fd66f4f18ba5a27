package io.fleetbus.hub.cluster;

import com.hazelcast.core.HazelcastInstance;

/**
 * The state every hub of a fleet shares through Hazelcast maps, so any hub can serve any frontend and
 * losing one hub loses none of it. Backups, time to live and merge policies per map: cluster.xml
 * (defaults applied in code when a config file lacks them: {@code ClusterLauncher}).
 */
public final class FleetState {
  /** Node credentials (proof keys) and enrollment tokens, so every hub admits and checks every node. */
  public static final String CREDENTIALS = "fleetbus.credentials";
  public static final String ENROLLMENTS = "fleetbus.enrollments";
  /** Registrations from the nodes' hellos: each hub tracks liveness itself from the published heartbeats. */
  public static final String NODES = "fleetbus.nodes";
  public static final String APPROVALS = "fleetbus.approvals";
  /** Finished calls' records up to 2 KiB stored, at most 20 per partition (the oldest go first: cluster.xml). */
  public static final String CALLS = "fleetbus.calls";
  /** Larger finished records (a big result), within a heap budget (the oldest go first: cluster.xml). */
  public static final String LARGE_CALLS = "fleetbus.calls.large";
  /** Records of calls not finished yet (pending approval, running): never evicted, so a takeover finds them all. */
  public static final String OPEN_CALLS = "fleetbus.calls.open";
  public static final String IDEMPOTENCY = "fleetbus.idempotency";
  /** Revoked user tokens and subjects, each entry forgotten when the tokens it revokes would have expired anyway. */
  public static final String REVOCATIONS = "fleetbus.revocations";

  public static final long DAY_MS = 24L * 60 * 60 * 1000;

  private final HazelcastInstance hazelcast;
  private final byte[] storeKey;
  /** One per map name: each keeps the versions this hub has seen of its entries. */
  private final java.util.Map<String, SharedMap> maps = new java.util.concurrent.ConcurrentHashMap<>();

  public FleetState(HazelcastInstance hazelcast, byte[] storeKey) {
    this.hazelcast = hazelcast;
    this.storeKey = storeKey.clone();
  }

  /** This hub's cluster member id. */
  public String localMemberId() {
    return hazelcast.getCluster().getLocalMember().getUuid().toString();
  }

  /** Whether the member (a hub) is still in the cluster. */
  public boolean isMember(String memberId) {
    return memberId != null && hazelcast.getCluster().getMembers().stream()
      .anyMatch(m -> m.getUuid().toString().equals(memberId));
  }

  /** Tells {@code onLeft}, on {@code ctx}, the member id of every hub (data member) that leaves the cluster. */
  public void onHubLeft(io.vertx.core.Context ctx, java.util.function.Consumer<String> onLeft) {
    hazelcast.getCluster().addMembershipListener(new com.hazelcast.cluster.MembershipListener() {
      @Override
      public void memberAdded(com.hazelcast.cluster.MembershipEvent event) {
        // a new hub takes part by itself
      }

      @Override
      public void memberRemoved(com.hazelcast.cluster.MembershipEvent event) {
        if (!event.getMember().isLiteMember()) {
          String id = event.getMember().getUuid().toString();
          ctx.runOnContext(v -> onLeft.accept(id));
        }
      }
    });
  }

  /** A map whose entries live until removed. */
  public SharedMap map(String name) {
    return map(name, 0);
  }

  /** A map whose entries are forgotten {@code ttlMs} after their last write (the first caller's {@code ttlMs} holds). */
  public SharedMap map(String name, long ttlMs) {
    return maps.computeIfAbsent(name, n -> new SharedMap(hazelcast.getMap(n), storeKey, ttlMs));
  }
}
