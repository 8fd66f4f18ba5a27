package io.fleetbus.node.tools;

import io.vertx.core.json.JsonObject;

/**
 * One tool's work on the node. Runs on a worker thread (never the event loop), so it may block on
 * files, processes and OSHI. Throw a {@link io.fleetbus.shared.bus.FleetException} for failures with a code.
 */
@FunctionalInterface
public interface ToolHandler {
  JsonObject run(JsonObject args, CallContext ctx) throws Exception;

  /**
   * The checks {@link #run} makes before it does anything (allowlist, argument rules, path scope, what this node can
   * start), without doing anything: the hub's dry check before it parks a call for a person. Throws the refusal
   * {@code run} would throw. Worker thread. By default none beyond the dispatcher's (tool, platform, tier, schema).
   */
  default void check(JsonObject args) throws Exception {
  }
}
