package io.fleetbus.node.tools;

import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import io.fleetbus.shared.catalog.Tiers;
import io.fleetbus.shared.catalog.ToolCatalog;
import io.fleetbus.shared.catalog.ToolSpec;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.Map;
import org.slf4j.Logger;
import org.slf4j.LoggerFactory;

/**
 * Checks a call against this node's own rules (known tool, schema, platform, capability tier) and
 * runs its handler off the event loop (an {@link InstantToolHandler}, which reads memory only, on it), capping the size of what it answers. The node checks again what the hub already checked: it never
 * trusts the bus alone.
 */
public final class ToolDispatcher {
  private static final Logger LOG = LoggerFactory.getLogger(ToolDispatcher.class);

  private final Vertx vertx;
  private final ToolCatalog catalog;
  private final Map<String, ToolHandler> handlers;
  private final NodeSettings settings;

  public ToolDispatcher(Vertx vertx, ToolCatalog catalog, Map<String, ToolHandler> handlers, NodeSettings settings) {
    this.vertx = vertx;
    this.catalog = catalog;
    this.handlers = Map.copyOf(handlers);
    this.settings = settings;
  }

  /** The names of the tools this node can run (sent in its hello). */
  public java.util.List<String> toolNames() {
    return handlers.keySet().stream().sorted().toList();
  }

  /** A call that passed this node's own rules: its tool, handler and validated arguments (defaults filled in). */
  private record Admitted(ToolSpec spec, ToolHandler handler, JsonObject args) {
  }

  private Admitted admit(ToolCall call) {
    ToolSpec spec = catalog.require(call.tool());
    ToolHandler handler = handlers.get(spec.name());
    if (handler == null || spec.runsOnHub()) {
      throw FailureCode.NOT_FOUND.exception("tool '" + spec.name() + "' is not served by node " + settings.nodeId());
    }
    String platform = NodeSettings.platform();
    if (!spec.supports(platform)) {
      throw FailureCode.BAD_REQUEST.exception("`" + spec.name() + "` is not available on `" + platform + "`");
    }
    if (spec.tier() > Tiers.maxToolTierForCapability(settings.capabilityTier())) {
      throw FailureCode.FORBIDDEN.exception("node " + settings.nodeId() + " has capability tier '"
        + settings.capabilityTier() + "', which does not allow tier-" + spec.tier() + " tool " + spec.name());
    }
    return new Admitted(spec, handler, catalog.validate(spec, call.args()));
  }

  /**
   * Would this node run {@code call}? Everything {@link #dispatch} and the tool check before they act (tool, platform,
   * capability tier, schema, then the tool's own {@link ToolHandler#check}), and nothing is run: succeeds, or fails
   * with the refusal the call itself would get.
   */
  public Future<Void> check(ToolCall call) {
    Admitted admitted;
    try {
      admitted = admit(call);
    } catch (FleetException e) {
      return Future.failedFuture(e);
    }
    return vertx.executeBlocking(() -> {
      admitted.handler().check(admitted.args());
      return (Void) null;
    }, false).recover(err -> Future.failedFuture(asFleetException(admitted.spec(), err)));
  }

  public Future<ToolResult> dispatch(ToolCall call, CallContext ctx) {
    long started = System.nanoTime();
    ToolSpec spec;
    JsonObject args;
    ToolHandler handler;
    try {
      Admitted admitted = admit(call);
      spec = admitted.spec();
      handler = admitted.handler();
      args = admitted.args();
    } catch (FleetException e) {
      return Future.failedFuture(e);
    }
    if (spec.tier() >= 3) {
      LOG.info("privileged call started [call: {}, tool: {}, principal: {}]", call.callId(), spec.name(), call.principal());
    }
    io.vertx.core.Context context = vertx.getOrCreateContext();
    int cap = settings.tools().resultCapBytes();
    Future<JsonObject> work = handler instanceof InstantToolHandler ? instant(handler, args, ctx, cap)
      : handler instanceof AsyncToolHandler async
      ? vertx.executeBlocking(() -> async.start(args, ctx), false).compose(stage -> Future.fromCompletionStage(stage, context))
        .compose(data -> vertx.executeBlocking(() -> ResultCap.apply(data, cap), false))
      : vertx.executeBlocking(() -> ResultCap.apply(handler.run(args, ctx), cap), false);
    // a cancelled call ends as such whatever its tool made of being stopped: an outcome, not a failure
    return work
      .map(data -> ctx.control().isCancelled() ? cancelled(call, spec, ctx, started)
        : ToolResult.ok(call.callId(), settings.nodeId(), data, (System.nanoTime() - started) / 1_000_000))
      .recover(err -> ctx.control().isCancelled() ? Future.succeededFuture(cancelled(call, spec, ctx, started))
        : Future.failedFuture(asFleetException(spec, err)))
      .onComplete(ar -> ctx.control().finish());
  }

  /** A memory-only tool, run here on the event loop: no worker hop there and back. */
  private static Future<JsonObject> instant(ToolHandler handler, JsonObject args, CallContext ctx, int cap) {
    try {
      return Future.succeededFuture(ResultCap.apply(handler.run(args, ctx), cap));
    } catch (Exception e) {
      return Future.failedFuture(e);
    }
  }

  private ToolResult cancelled(ToolCall call, ToolSpec spec, CallContext ctx, long started) {
    String by = ctx.control().cancelledBy();
    return ToolResult.cancelled(call.callId(), settings.nodeId(), by, spec.name() + " was stopped at the request of " + by,
      (System.nanoTime() - started) / 1_000_000);
  }

  private static FleetException asFleetException(ToolSpec spec, Throwable failure) {
    // an asynchronous tool's failure may arrive wrapped by its completion stage
    Throwable err = failure instanceof java.util.concurrent.CompletionException && failure.getCause() != null
      ? failure.getCause() : failure;
    if (err instanceof FleetException fe) {
      return fe;
    }
    LOG.warn("tool failed [tool: {}, error: {}]", spec.name(), err.toString());
    return FailureCode.TOOL_FAILED.exception(spec.name() + " failed: " + err.getMessage());
  }
}
