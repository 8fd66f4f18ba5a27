package io.fleetbus.hub.mcp;

/** A JSON-RPC level failure of one request (as opposed to a tool that ran and failed: that is an isError result). */
final class McpError extends RuntimeException {
  final int code;

  McpError(int code, String message) {
    super(message, null, false, false);
    this.code = code;
  }
}
