package io.fleetbus.hub.routing;

import io.fleetbus.hub.registry.NodeRecord;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.catalog.Tiers;
import io.fleetbus.shared.catalog.ToolSpec;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;

/** Which nodes may take a call, and why the others may not. */
final class Eligibility {
  private Eligibility() {
  }

  /** Why {@code node} cannot run {@code spec} (offline, capability tier, platform), or null if it can. */
  static String reason(NodeRecord node, ToolSpec spec) {
    if (!node.online()) {
      return "offline (last seen " + (node.lastSeen() == 0 ? "never" : ((System.currentTimeMillis() - node.lastSeen()) / 1000)
        + " s ago") + ")";
    }
    return incapable(node, spec);
  }

  /** Why {@code node} could never run {@code spec}, online or not (capability tier, platform), or null. */
  private static String incapable(NodeRecord node, ToolSpec spec) {
    if (spec.tier() > Tiers.maxToolTierForCapability(node.capabilityTier())) {
      return "capability tier '" + node.capabilityTier() + "' does not allow tier-" + spec.tier() + " tool " + spec.name();
    }
    if (node.platform() != null && !spec.supports(node.platform())) {
      return "`" + spec.name() + "` is not available on `" + node.platform() + "`";
    }
    return null;
  }

  /** The same check for one named node, as the failure a caller gets. */
  static void require(NodeRecord node, ToolSpec spec) {
    String why = reason(node, spec);
    if (why != null && !node.online()) {
      throw FailureCode.NO_ELIGIBLE_NODE.exception("node '" + node.nodeId() + "' is " + why);
    }
    requireCapable(node, spec);
  }

  /** {@link #require} except for being online: what an offline node's record already rules out. */
  static void requireCapable(NodeRecord node, ToolSpec spec) {
    String why = incapable(node, spec);
    if (why != null) {
      throw (why.startsWith("`") ? FailureCode.BAD_REQUEST : FailureCode.FORBIDDEN).exception(
        why.startsWith("`") ? why : "node '" + node.nodeId() + "' has " + why);
    }
  }

  /** The nodes a selector picks for a tool; a 503 listing every candidate's exclusion when none is left. */
  static List<NodeRecord> select(List<NodeRecord> candidates, ToolSpec spec, Selector selector) {
    List<NodeRecord> eligible = new ArrayList<>();
    JsonObject excluded = new JsonObject();
    for (NodeRecord n : candidates) {
      String why = selector.mismatch(n.nodeId(), n.labels(), n.platform(), n.capabilityTier());
      if (why == null) {
        why = reason(n, spec);
      }
      if (why == null) {
        eligible.add(n);
      } else {
        excluded.put(n.nodeId(), why);
      }
    }
    if (eligible.isEmpty()) {
      throw FailureCode.NO_ELIGIBLE_NODE.exception("no eligible node for " + spec.name() + " with " + selector.toJson().encode()
        + (excluded.isEmpty() ? ": no node is known to this hub" : "; excluded: " + excluded.encode()));
    }
    return eligible;
  }
}
