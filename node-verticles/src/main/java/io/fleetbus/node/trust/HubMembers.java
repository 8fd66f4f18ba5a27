package io.fleetbus.node.trust;

import com.hazelcast.core.EntryEvent;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import com.hazelcast.map.listener.EntryAddedListener;
import com.hazelcast.map.listener.EntryRemovedListener;
import com.hazelcast.map.listener.EntryUpdatedListener;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.cluster.Pins;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The node's side of member pinning (issue 15, part 1): what the node sends to the hubs — hellos, heartbeats, events,
 * goodbyes, the chunks of a call's output — goes only to cluster members proven to be hubs of its fleet: members whose
 * entry in the map {@code fleetbus.hubs} is signed with the hub key this node trusts (pinned at enrollment). A consumer
 * another member registers on those addresses never receives anything from this node. Before the node is enrolled it
 * trusts no hub key yet, and nothing is restricted (the enrollment hello proves itself with the one-time token).
 * Issue 32: a statement that verified is not replaced by one that does not, nor forgotten when another member removes
 * it (any member writes this map); and where a hub's event bus listens is taken from its statement, not from the
 * cluster's registry ({@link #provenBus}).
 */
public final class HubMembers implements Pins {
  private static final Logger LOG = LoggerFactory.getLogger(HubMembers.class);
  private static final String HUBS_MAP = "fleetbus.hubs";

  private final NodeTrust trust;
  /** Member id → its signed hub statement, as the map holds it (verified when asked). */
  private final Map<String, String> statements = new ConcurrentHashMap<>();
  private volatile Consumer<String> changed = address -> { };
  /** Statements already checked (a signed statement's verdict never changes while the trusted hub key stays). */
  private final Map<String, Boolean> verdicts = new ConcurrentHashMap<>();

  public HubMembers(NodeTrust trust) {
    this.trust = trust;
  }

  /**
   * Follows and reads the cluster's list of hubs (after each join): listening first, so that a hub announcing itself
   * while the list is read is heard either way. Read first, a statement written between the read and the listener's
   * start was missed for good: the node never sent that hub a hello or a heartbeat (the hub-join hello race,
   * HubJoinsWhileNodeReadsHubsTest). What the read finds goes through the same rule as what the listener hears.
   */
  public void follow(HazelcastInstance hz) {
    IMap<String, String> hubs = hz.getMap(HUBS_MAP);
    statements.clear();
    hubs.addEntryListener(new Listener(), true);
    hubs.forEach(this::take);
    changed.accept(null);
  }

  /** Holds {@code statement} for {@code member} unless it may not replace a proven one held; true when held. */
  private boolean take(String member, String statement) {
    if (!replaces(member, statement)) {
      return false;
    }
    statements.put(member, statement);
    return true;
  }

  /** The node's trust changed (enrolled, or rekeyed): what may receive is judged anew. */
  public void trustChanged() {
    verdicts.clear();
    changed.accept(null);
  }

  @Override
  public boolean covers(String address) {
    return Addresses.isHubBound(address);
  }

  @Override
  public Set<String> membersFor(String address) {
    DirectiveVerifier verifier = trust.verifier();
    if (verifier == null || !covers(address)) {
      return null;
    }
    Set<String> proven = new java.util.HashSet<>();
    statements.forEach((member, statement) -> {
      if (proven(verifier, member, statement)) {
        proven.add(member);
      }
    });
    return proven;
  }

  /**
   * Whether one of {@code memberUuids} (the cluster's data members) is a proven hub of this node's fleet; true while the
   * node trusts no hub key yet (before its enrollment every data member may be its hub).
   */
  public boolean anyProven(java.util.Collection<String> memberUuids) {
    DirectiveVerifier verifier = trust.verifier();
    if (verifier == null) {
      return true;
    }
    for (String member : memberUuids) {
      String statement = statements.get(member);
      if (statement != null && proven(verifier, member, statement)) {
        return true;
      }
    }
    return false;
  }

  @Override
  public String provenBus(String memberUuid) {
    DirectiveVerifier verifier = trust.verifier();
    String statement = statements.get(memberUuid);
    if (verifier == null || statement == null || !proven(verifier, memberUuid, statement)) {
      return null;
    }
    JsonObject claims = verifier.verifyStatement(statement);
    return claims == null ? null : claims.getString("bus");
  }

  private boolean proven(DirectiveVerifier verifier, String member, String statement) {
    if (verdicts.size() > 10_000) {
      verdicts.clear();
    }
    return verdicts.computeIfAbsent(member + "\n" + statement, k -> {
      JsonObject claims = verifier.verifyStatement(statement);
      return claims != null && member.equals(claims.getString("member"));
    });
  }

  /** Whether {@code statement} may take the place of what the node holds for {@code member}. */
  private boolean replaces(String member, String statement) {
    DirectiveVerifier verifier = trust.verifier();
    String held = statements.get(member);
    if (verifier == null || held == null || !proven(verifier, member, held)
      || statement != null && proven(verifier, member, statement)) {
      return true;
    }
    LOG.warn("a proven hub's entry in {} was {} by another member: the proven one is kept [member: {}]", HUBS_MAP,
      statement == null ? "removed" : "overwritten", member);
    return false;
  }

  @Override
  public void onChange(Consumer<String> listener) {
    this.changed = listener;
  }

  private final class Listener implements EntryAddedListener<String, String>, EntryUpdatedListener<String, String>,
    EntryRemovedListener<String, String> {
    @Override
    public void entryAdded(EntryEvent<String, String> e) {
      if (take(e.getKey(), e.getValue())) {
        changed.accept(null);
      }
    }

    @Override
    public void entryUpdated(EntryEvent<String, String> e) {
      entryAdded(e);
    }

    @Override
    public void entryRemoved(EntryEvent<String, String> e) {
      if (!replaces(e.getKey(), null)) {
        return;
      }
      statements.remove(e.getKey());
      LOG.debug("hub left the list [member: {}]", e.getKey());
      changed.accept(null);
    }
  }
}
