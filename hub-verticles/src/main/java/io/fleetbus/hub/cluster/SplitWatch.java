package io.fleetbus.hub.cluster;

import com.hazelcast.cluster.Member;
import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.core.LifecycleEvent.LifecycleState;
import com.hazelcast.map.IMap;
import io.fleetbus.hub.auth.DirectiveSigner;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;
import java.time.Instant;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.concurrent.TimeUnit;
import java.util.stream.Collectors;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Which hubs this hub lost without a goodbye (issue 34): a hub that stops cleanly says goodbye first (an entry in
 * {@value #GOODBYES}, written while its member shuts down, signed with the fleet's directive key: any member can write
 * the map, but a forged goodbye hides no loss); one that leaves the cluster without it crashed, hangs, or is
 * on the other side of a cut network — from here the three look the same, and after a cut both sides serve on. Such a
 * hub stays listed (by its cluster address, which a hub keeps when it rejoins under a new member id or restarts) until
 * a hub at that address is a member again. {@link #state()} is what {@code /ready}'s {@code cluster} check and the
 * dashboard show: {@code whole}, or {@code majority} / {@code half} / {@code minority} of the hubs this one knew.
 * Never a reason to be unready: see docs/reliability.md, "Split brain".
 */
public final class SplitWatch {
  private static final Logger LOG = LoggerFactory.getLogger(SplitWatch.class);
  /** Member id of a hub that stopped cleanly → its signed goodbye (kept an hour: only its member's removal reads it). */
  static final String GOODBYES = "fleetbus.hubs.goodbyes";

  /** A hub gone without a goodbye: its member id then, its cluster address, since when (epoch ms). */
  record Lost(String member, String address, long since) {
  }

  private final Vertx vertx;
  private final HazelcastInstance hz;
  private final DirectiveSigner signer;
  private final Map<String, Lost> lost = new ConcurrentHashMap<>();
  /** Hubs that left so far, judged (with or without a goodbye): what a test waits on. */
  final java.util.concurrent.atomic.AtomicInteger judged = new java.util.concurrent.atomic.AtomicInteger();

  public SplitWatch(Vertx vertx, HazelcastInstance hz, DirectiveSigner signer) {
    this.vertx = vertx;
    this.hz = hz;
    this.signer = signer;
  }

  /** Says goodbye when this hub's member shuts down, and watches the other hubs leave and come back. */
  public SplitWatch start() {
    IMap<String, String> goodbyes = hz.getMap(GOODBYES);
    hz.getLifecycleService().addLifecycleListener(e -> {
      if (e.getState() == LifecycleState.SHUTTING_DOWN) {
        sayGoodbye(goodbyes);
      } else if (e.getState() == LifecycleState.MERGED) {
        vertx.runOnContext(v -> sweep("the split healed"));
      }
    });
    hz.getCluster().addMembershipListener(new MembershipListener() {
      @Override
      public void memberAdded(MembershipEvent event) {
        vertx.runOnContext(v -> sweep("it joined again"));
      }

      @Override
      public void memberRemoved(MembershipEvent event) {
        Member m = event.getMember();
        if (!m.isLiteMember()) {
          long at = System.currentTimeMillis();
          // a map read: not on Hazelcast's event thread
          vertx.executeBlocking(() -> saidGoodbye(m.getUuid().toString(), goodbyes.get(m.getUuid().toString())), false)
            .onSuccess(said -> left(m, said, at))
            .onFailure(err -> left(m, false, at));
        }
      }
    });
    return this;
  }

  private void sayGoodbye(IMap<String, String> goodbyes) {
    try {
      String self = hz.getCluster().getLocalMember().getUuid().toString();
      goodbyes.set(self, signer.signStatement(new JsonObject().put("member", self).put("goodbye",
        System.currentTimeMillis())), 1, TimeUnit.HOURS);
    } catch (RuntimeException e) {
      LOG.debug("no goodbye said [reason: {}]", e.toString());
    }
  }

  /** Whether {@code statement} is this fleet's signed goodbye of {@code member}. */
  private boolean saidGoodbye(String member, String statement) {
    JsonObject claims = statement == null ? null : signer.verifyStatement(statement);
    return claims != null && member.equals(claims.getString("member")) && claims.containsKey("goodbye");
  }

  private void left(Member m, boolean goodbye, long at) {
    String address = m.getAddress().toString();
    judged.incrementAndGet();
    if (goodbye) {
      LOG.info("hub left the cluster with a goodbye [member: {}, address: {}]", m.getUuid(), address);
      return;
    }
    lost.put(address, new Lost(m.getUuid().toString(), address, at));
    LOG.warn("hub lost without a goodbye [member: {}, address: {}, hubs here now: {}]: it crashed, hangs, or the network"
      + " between us is cut — then both sides serve on until it heals (docs/reliability.md, Split brain)", m.getUuid(),
      address, hubsNow().size());
  }

  /** Forgets the lost hubs whose address is a member again. */
  private void sweep(String why) {
    Set<String> here = hubsNow();
    lost.values().removeIf(l -> {
      if (!here.contains(l.address())) {
        return false;
      }
      LOG.info("lost hub back in the cluster ({}) [address: {}, lost for: {} ms]", why, l.address(),
        System.currentTimeMillis() - l.since());
      return true;
    });
  }

  private Set<String> hubsNow() {
    return hz.getCluster().getMembers().stream().filter(m -> !m.isLiteMember()).map(m -> m.getAddress().toString())
      .collect(Collectors.toSet());
  }

  /** How many hubs this hub lost without a goodbye and has not seen again (the gauge fleetbus.cluster.hubs.lost). */
  public int lostHubs() {
    return state().getJsonArray("lostHubs").size();
  }

  /**
   * {@code state} (whole | majority | half | minority of the hubs this hub knew), {@code hubs} here now, and
   * {@code lostHubs} (member, address, since, lostForSeconds), oldest first. Reads only the local member list.
   */
  public JsonObject state() {
    Set<String> here = hubsNow();
    long now = System.currentTimeMillis();
    JsonArray gone = new JsonArray();
    lost.values().stream().filter(l -> !here.contains(l.address()))
      .sorted(java.util.Comparator.comparingLong(Lost::since))
      .forEach(l -> gone.add(new JsonObject().put("member", l.member()).put("address", l.address())
        .put("since", Instant.ofEpochMilli(l.since()).toString()).put("lostForSeconds", (now - l.since()) / 1000)));
    int known = here.size() + gone.size();
    String state = gone.isEmpty() ? "whole" : 2 * here.size() > known ? "majority" : 2 * here.size() == known ? "half"
      : "minority";
    JsonObject j = new JsonObject().put("state", state).put("hubs", here.size()).put("lostHubs", gone);
    if (!gone.isEmpty()) {
      j.put("note", "lost " + gone.size() + " of " + known + " hubs without a goodbye since "
        + gone.getJsonObject(0).getString("since") + ": crashed, hung or cut off; this hub serves on, and so does a hub"
        + " cut off from it (split brain) until the network heals");
    }
    return j;
  }
}
