package io.fleetbus.shared.cluster;

import io.fleetbus.shared.bus.Addresses;
import io.vertx.core.Vertx;
import java.util.Map;
import java.util.Set;
import java.util.concurrent.ConcurrentHashMap;
import java.util.function.Consumer;

/**
 * Which cluster member may receive a node's messages (issue 15): the member the node proved itself on in its
 * hello (the hub's registry pins it, from a proven hello or another hub's sealed registration). The event bus of a
 * hub then sees, for {@code fleet.node.<id>.call} and {@code .control}, only that member's consumers: whatever
 * another member registers there never receives a call, a cancel or a config update. Thread-safe: the registry
 * writes from its event loop, the event bus reads from any thread.
 */
public final class MemberPins implements Pins {
  private static final Map<Vertx, MemberPins> BY_VERTX = java.util.Collections.synchronizedMap(new java.util.WeakHashMap<>());
  private static final String NODE_PREFIX = "fleet.node.";

  private final Map<String, String> memberByNode = new ConcurrentHashMap<>();
  /**
   * Where a member's event bus listens, as that member proved it (issue 32): a node in its hello (kept per node, as
   * the member it proved itself on), a hub in its signed statement. The cluster's registry ({@code __vertx.nodeInfo}) is a
   * map any member can rewrite.
   */
  private final Map<String, String> busByMember = new ConcurrentHashMap<>();
  private final Map<String, String> busByHub = new ConcurrentHashMap<>();
  private volatile Consumer<String> changed = address -> { };

  /** The pins of the hub running on {@code vertx}; a hub or test without pinning gets a detached set (nothing filters). */
  public static MemberPins of(Vertx vertx) {
    MemberPins pins = BY_VERTX.get(vertx);
    return pins != null ? pins : new MemberPins();
  }

  static void attach(Vertx vertx, MemberPins pins) {
    BY_VERTX.put(vertx, pins);
  }

  @Override
  public void onChange(Consumer<String> listener) {
    this.changed = listener;
  }

  /** As {@link #pin(String, String)}, with where the node's proven hello says its event bus listens (null: unknown). */
  public void pin(String nodeId, String memberId, String bus) {
    String before = memberByNode.get(nodeId);
    if (before != null && !before.equals(memberId)) {
      busByMember.remove(before);
    }
    if (bus != null && memberId != null) {
      busByMember.put(memberId, bus);
    }
    pin(nodeId, memberId);
  }

  /** Hub member {@code memberId} proved (its signed statement) that its event bus listens at {@code bus}. */
  public void hubBus(String memberId, String bus) {
    if (bus != null) {
      if (busByHub.size() > 10_000) {
        busByHub.clear();
      }
      busByHub.put(memberId, bus);
    }
  }

  /**
   * The event-bus address member {@code memberUuid} proved: a hub's from its statement, else that of a node pinned to
   * it. Asked when the event bus first connects to a member, not per message.
   */
  @Override
  public String provenBus(String memberUuid) {
    String hub = busByHub.get(memberUuid);
    return hub != null ? hub : busByMember.get(memberUuid);
  }

  /** Node {@code nodeId} proved itself on cluster member {@code memberId} (null: forget the pin). */
  public void pin(String nodeId, String memberId) {
    String before = memberId == null ? memberByNode.remove(nodeId) : memberByNode.put(nodeId, memberId);
    if (!java.util.Objects.equals(before, memberId)) {
      changed.accept(Addresses.nodeCall(nodeId));
      changed.accept(Addresses.nodeControl(nodeId));
    }
  }

  /** The nodes pinned to cluster member {@code memberId} (a proven node's member). */
  public java.util.List<String> nodesOn(String memberId) {
    return memberByNode.entrySet().stream().filter(e -> e.getValue().equals(memberId)).map(Map.Entry::getKey).sorted()
      .toList();
  }

  public void unpin(String nodeId) {
    String member = memberByNode.get(nodeId);
    if (member != null) {
      busByMember.remove(member);
    }
    pin(nodeId, null);
  }

  /**
   * The only member whose consumers may receive messages sent to {@code address}; null when the address is not
   * pinned (not a node's call or control address, or a node no proven hello named yet).
   */
  @Override
  public Set<String> membersFor(String address) {
    String member = memberFor(address);
    return member == null ? null : Set.of(member);
  }

  @Override
  public boolean covers(String address) {
    return memberFor(address) != null;
  }

  public String memberFor(String address) {
    if (!address.startsWith(NODE_PREFIX)) {
      return null;
    }
    int end = address.lastIndexOf('.');
    if (end <= NODE_PREFIX.length()) {
      return null;
    }
    String nodeId = address.substring(NODE_PREFIX.length(), end);
    return address.equals(Addresses.nodeCall(nodeId)) || address.equals(Addresses.nodeControl(nodeId))
      ? memberByNode.get(nodeId) : null;
  }
}
