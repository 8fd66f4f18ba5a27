package io.fleetbus.shared.cluster;

import io.vertx.core.Completable;
import io.vertx.core.Vertx;
import io.vertx.core.shareddata.AsyncMap;
import io.vertx.core.shareddata.Counter;
import io.vertx.core.shareddata.Lock;
import io.vertx.core.spi.cluster.ClusterManager;
import io.vertx.core.spi.cluster.NodeInfo;
import io.vertx.core.spi.cluster.NodeListener;
import io.vertx.core.spi.cluster.RegistrationInfo;
import io.vertx.core.spi.cluster.RegistrationListener;
import io.vertx.core.spi.cluster.RegistrationUpdateEvent;
import java.util.List;
import java.util.Map;
import java.util.concurrent.ConcurrentHashMap;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * The cluster manager as a hub's event bus sees it: everything is the Hazelcast one's, except that for a pinned
 * address ({@link MemberPins}: a node's call and control addresses) the registrations it reports are only those of
 * the member the node proved itself on. The event bus picks receivers from these lists (its node selector asks
 * {@link #getRegistrations} and hears {@link RegistrationListener} updates), so a consumer another member registers
 * on a node's address is never chosen: it receives no call, no cancel, no config update.
 */
final class PinnedClusterManager implements ClusterManager {
  private static final Logger LOG = LoggerFactory.getLogger(PinnedClusterManager.class);

  private final ClusterManager delegate;
  private final Pins pins;
  /** The event bus's node id of a cluster member (Hazelcast member uuid → its {@code __vertx.nodeId} attribute). */
  private final java.util.function.Function<String, String> busNodeOf;
  /** The reverse: the Hazelcast member uuid of an event-bus node id (null when no such member is in the cluster). */
  private final java.util.function.Function<String, String> memberOfBusNode;
  /** The latest unfiltered registrations heard per address, to re-announce an address when its pin changes. */
  private final Map<String, List<RegistrationInfo>> heard = new ConcurrentHashMap<>();
  private volatile RegistrationListener listener;
  /** Counts pin changes: an update filtered while one happened is told again (see {@link #registrationListener}). */
  private final java.util.concurrent.atomic.AtomicLong pinChanges = new java.util.concurrent.atomic.AtomicLong();
  /** What was warned about already (address and registrations), so a cached impostor is named once, not per call. */
  private final java.util.Set<String> warned = ConcurrentHashMap.newKeySet();

  PinnedClusterManager(ClusterManager delegate, Pins pins, java.util.function.Function<String, String> busNodeOf,
                       java.util.function.Function<String, String> memberOfBusNode) {
    this.delegate = delegate;
    this.pins = pins;
    this.busNodeOf = busNodeOf;
    this.memberOfBusNode = memberOfBusNode;
    pins.onChange(this::repin);
  }

  private List<RegistrationInfo> filter(String address, List<RegistrationInfo> all) {
    java.util.Set<String> pinned = pins.membersFor(address);
    if (pinned == null || all == null) {
      return all;
    }
    // a member not (or no longer) in the cluster has no node id: nobody receives, the sender hears "no handlers"
    java.util.Set<String> allowed = pinned.stream().map(busNodeOf).filter(java.util.Objects::nonNull)
      .collect(java.util.stream.Collectors.toSet());
    List<RegistrationInfo> kept = all.stream().filter(r -> r.localOnly() || allowed.contains(r.nodeId())).toList();
    if (kept.size() < all.size() && warned.size() < 10_000 && warned.add(address + " " + all)) {
      LOG.warn("consumer on a pinned address ignored: not a member it may go to [address: {}, members: {}]", address,
        all.stream().map(RegistrationInfo::nodeId).filter(id -> !allowed.contains(id)).distinct().toList());
    }
    return kept;
  }

  /** Allowed members changed: the event bus hears the address's receivers anew (null: every address heard). */
  private void repin(String address) {
    pinChanges.incrementAndGet();
    if (address == null) {
      java.util.List.copyOf(heard.keySet()).forEach(this::repinOne);
    } else {
      repinOne(address);
    }
  }

  private void repinOne(String address) {
    RegistrationListener l = listener;
    List<RegistrationInfo> all = heard.get(address);
    if (l != null && all != null && l.wantsUpdatesFor(address)) {
      l.registrationsUpdated(new RegistrationUpdateEvent(address, filter(address, all)));
    }
  }

  private void remember(String address, List<RegistrationInfo> all) {
    if (pins.covers(address)) {
      if (heard.size() > 10_000) {
        heard.clear();
      }
      heard.put(address, all);
    }
  }

  @Override
  public void getRegistrations(String address, Completable<List<RegistrationInfo>> promise) {
    delegate.getRegistrations(address, (all, err) -> {
      long before = pinChanges.get();
      if (err == null) {
        remember(address, all);
      }
      promise.complete(err == null ? filter(address, all) : null, err);
      if (err == null && pinChanges.get() != before) {
        repinOne(address); // as for an update (registrationListener): a change while filtering is told again
      }
    });
  }

  @Override
  public void registrationListener(RegistrationListener registrationListener) {
    this.listener = registrationListener;
    delegate.registrationListener(new RegistrationListener() {
      @Override
      public void registrationsUpdated(RegistrationUpdateEvent event) {
        // an update filtered with the pins before a change and told after the change's own re-telling would leave the
        // event bus with the old receivers for good (a hub proven while its consumers' registrations were filtered got
        // nothing from the node): so one that saw a change meanwhile is told again, with the pins as they are now
        long before = pinChanges.get();
        remember(event.address(), event.registrations());
        registrationListener.registrationsUpdated(new RegistrationUpdateEvent(event.address(),
          filter(event.address(), event.registrations())));
        if (pinChanges.get() != before) {
          repinOne(event.address());
        }
      }

      @Override
      public void registrationsLost() {
        heard.clear();
        registrationListener.registrationsLost();
      }

      @Override
      public boolean wantsUpdatesFor(String address) {
        return registrationListener.wantsUpdatesFor(address);
      }
    });
  }

  @Override
  public void init(Vertx vertx) {
    delegate.init(vertx);
  }

  @Override
  public <K, V> void getAsyncMap(String name, Completable<AsyncMap<K, V>> promise) {
    delegate.getAsyncMap(name, promise);
  }

  @Override
  public <K, V> Map<K, V> getSyncMap(String name) {
    return delegate.getSyncMap(name);
  }

  @Override
  public void getLockWithTimeout(String name, long timeout, Completable<Lock> promise) {
    delegate.getLockWithTimeout(name, timeout, promise);
  }

  @Override
  public void getCounter(String name, Completable<Counter> promise) {
    delegate.getCounter(name, promise);
  }

  @Override
  public String getNodeId() {
    return delegate.getNodeId();
  }

  @Override
  public List<String> getNodes() {
    return delegate.getNodes();
  }

  @Override
  public void nodeListener(NodeListener nodeListener) {
    delegate.nodeListener(nodeListener);
  }

  @Override
  public void setNodeInfo(NodeInfo nodeInfo, Completable<Void> promise) {
    delegate.setNodeInfo(nodeInfo, promise);
  }

  @Override
  public NodeInfo getNodeInfo() {
    return delegate.getNodeInfo();
  }

  /**
   * Where a member's event bus listens: the registry's answer, unless the member proved another address (a hub, in its
   * signed statement): then the proven one, and a warning once (issue 32: a rewritten {@code __vertx.nodeInfo} entry
   * sent a node's hellos to a rogue).
   */
  @Override
  public void getNodeInfo(String nodeId, Completable<NodeInfo> promise) {
    delegate.getNodeInfo(nodeId, (info, err) -> {
      String member = memberOfBusNode.apply(nodeId);
      String proven = member == null ? null : pins.provenBus(member);
      int colon = proven == null ? -1 : proven.lastIndexOf(':');
      if (colon < 0 || info != null && proven.equals(info.host() + ":" + info.port())) {
        promise.complete(info, err);
        return;
      }
      if (warned.size() < 10_000 && warned.add("nodeInfo " + nodeId + " " + (info == null ? null : info.host() + ":" + info.port()))) {
        LOG.warn("cluster registry entry of member {} says its event bus is at {}, it proved {}: the proven one is used",
          member, info == null ? "(none)" : info.host() + ":" + info.port(), proven);
      }
      promise.complete(new NodeInfo(proven.substring(0, colon), Integer.parseInt(proven.substring(colon + 1)),
        info == null ? null : info.metadata()), null);
    });
  }

  @Override
  public void join(Completable<Void> promise) {
    delegate.join(promise);
  }

  @Override
  public void leave(Completable<Void> promise) {
    delegate.leave(promise);
  }

  @Override
  public boolean isActive() {
    return delegate.isActive();
  }

  @Override
  public void addRegistration(String address, RegistrationInfo registrationInfo, Completable<Void> promise) {
    delegate.addRegistration(address, registrationInfo, promise);
  }

  @Override
  public void removeRegistration(String address, RegistrationInfo registrationInfo, Completable<Void> promise) {
    delegate.removeRegistration(address, registrationInfo, promise);
  }

  @Override
  public String clusterHost() {
    return delegate.clusterHost();
  }

  @Override
  public String clusterPublicHost() {
    return delegate.clusterPublicHost();
  }
}
