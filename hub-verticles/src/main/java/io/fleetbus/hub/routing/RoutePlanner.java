package io.fleetbus.hub.routing;

import io.fleetbus.hub.registry.NodeRecord;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.catalog.ToolSpec;
import io.fleetbus.shared.msg.ToolCall;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.function.BiFunction;
import java.util.function.Function;
import java.util.function.Supplier;

/**
 * Plans a call before it parks for a person ({@link RoutingService#plan}): the same rules routing applies (the node's
 * capability tier and platform, a selector's eligible nodes) and each node's own dry check of the arguments
 * ({@link DryCheck}: allowlist, argument rules, path scope). A selector is resolved here, once: the plan pins the call
 * to one willing node, or to every eligible node for a fan-out. A named node that is unknown or offline is not refused:
 * the call parks as before and is checked again when it runs.
 */
final class RoutePlanner {
  private final ToolCatalog catalog;
  private final Function<String, Future<NodeRecord>> lookup;
  private final Supplier<Future<List<NodeRecord>>> candidates;
  private final BiFunction<ToolCall, String, Future<DryCheck.Answer>> dryCheck;
  private final BiFunction<List<NodeRecord>, ToolSpec, NodeRecord> pick;

  RoutePlanner(ToolCatalog catalog, Function<String, Future<NodeRecord>> lookup,
               Supplier<Future<List<NodeRecord>>> candidates, BiFunction<ToolCall, String, Future<DryCheck.Answer>> dryCheck,
               BiFunction<List<NodeRecord>, ToolSpec, NodeRecord> pick) {
    this.catalog = catalog;
    this.lookup = lookup;
    this.candidates = candidates;
    this.dryCheck = dryCheck;
    this.pick = pick;
  }

  Future<RoutePlan> plan(ToolCall call) {
    ToolSpec spec;
    try {
      spec = catalog.require(call.tool());
    } catch (FleetException e) {
      return Future.succeededFuture(RoutePlan.refused(e.code(), e.getMessage(), "policy", new JsonObject()));
    }
    return call.nodeId() != null ? planNamed(call, spec) : planSelected(call, spec);
  }

  private Future<RoutePlan> planNamed(ToolCall call, ToolSpec spec) {
    return lookup.apply(call.nodeId()).transform(found -> {
      if (found.failed()) {
        return Future.succeededFuture(RoutePlan.runs(call, new JsonObject().put(call.nodeId(),
          "not checked: " + found.cause().getMessage())));
      }
      NodeRecord node = found.result();
      try {
        Eligibility.requireCapable(node, spec);
      } catch (FleetException e) {
        return Future.succeededFuture(RoutePlan.refused(e.code(), e.getMessage(), "policy", new JsonObject()));
      }
      if (!node.online()) {
        return Future.succeededFuture(RoutePlan.runs(call, new JsonObject().put(node.nodeId(), "not checked: offline")));
      }
      return dryCheck.apply(call, node.nodeId()).map(answer -> answer.refused()
        ? RoutePlan.refused(answer.code(), "node '" + node.nodeId() + "' refuses " + spec.name() + ": " + answer.message(),
          "node " + node.nodeId(), new JsonObject())
        : RoutePlan.runs(call, new JsonObject().put(node.nodeId(), answer.toJson())));
    });
  }

  private Future<RoutePlan> planSelected(ToolCall call, ToolSpec spec) {
    Selector selector;
    try {
      selector = Selector.fromJson(call.selector() == null ? new JsonObject() : call.selector());
    } catch (FleetException e) {
      return Future.succeededFuture(RoutePlan.refused(e.code(), e.getMessage(), "policy", new JsonObject()));
    }
    return candidates.get().compose(all -> {
      List<NodeRecord> eligible;
      try {
        eligible = Eligibility.select(all, spec, selector);
      } catch (FleetException e) {
        return Future.succeededFuture(RoutePlan.refused(e.code(), e.getMessage(), "policy", new JsonObject()));
      }
      List<Future<DryCheck.Answer>> asked = eligible.stream().map(n -> dryCheck.apply(call, n.nodeId())).toList();
      return Future.join(asked).transform(done -> Future.succeededFuture(decide(call, spec, selector, eligible, asked)));
    });
  }

  /** Every eligible node asked: a fan-out keeps them all (a refusal shows in its result), one call a willing node. */
  private RoutePlan decide(ToolCall call, ToolSpec spec, Selector selector, List<NodeRecord> eligible,
                           List<Future<DryCheck.Answer>> asked) {
    JsonObject checked = new JsonObject();
    List<NodeRecord> willing = new ArrayList<>();
    DryCheck.Answer firstRefusal = null;
    for (int i = 0; i < eligible.size(); i++) {
      DryCheck.Answer a = asked.get(i).result();
      checked.put(a.nodeId(), a.toJson());
      if (a.refused()) {
        firstRefusal = firstRefusal == null ? a : firstRefusal;
      } else {
        willing.add(eligible.get(i));
      }
    }
    if (willing.isEmpty()) {
      return RoutePlan.refused(firstRefusal.code(), (eligible.size() == 1 ? "node '" + firstRefusal.nodeId()
        + "' refuses " : "every eligible node refuses " + spec.name() + "; node '" + firstRefusal.nodeId() + "': ")
        + firstRefusal.message(), "node " + firstRefusal.nodeId(), checked);
    }
    List<NodeRecord> nodes = selector.fanOut() ? eligible : List.of(pick.apply(willing, spec));
    return RoutePlan.pinned(call, nodes.stream().map(NodeRecord::nodeId).toList(), checked);
  }
}
