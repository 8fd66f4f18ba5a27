package io.fleetbus.node.tools;

/**
 * A tool that answers from the agent's memory alone (no file, process, OSHI, lock or network): the dispatcher runs it
 * on the event loop, where it takes microseconds, instead of handing it to a worker and back. Anything that may block,
 * even a file's metadata, belongs in a plain {@link ToolHandler}.
 */
@FunctionalInterface
public interface InstantToolHandler extends ToolHandler {
}
