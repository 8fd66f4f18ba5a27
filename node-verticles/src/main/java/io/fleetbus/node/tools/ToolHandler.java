package io.fleetbus.node.tools;

import io.vertx.core.json.JsonObject;

/**
 * One tool's work on the node. Runs on a worker thread (never the event loop), so it may block on
 * files, processes and OSHI. Throw a {@link io.fleetbus.shared.bus.FleetException} for failures with a code.
 */
@FunctionalInterface
public interface ToolHandler {
  JsonObject run(JsonObject args, CallContext ctx) throws Exception;
}
