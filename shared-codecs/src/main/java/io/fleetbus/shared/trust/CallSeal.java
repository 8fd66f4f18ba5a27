package io.fleetbus.shared.trust;

import io.fleetbus.shared.msg.StreamChunk;
import io.fleetbus.shared.msg.ToolCall;
import io.fleetbus.shared.msg.ToolResult;
import io.vertx.core.json.JsonObject;

/**
 * A call's arguments and its result's data, sealed between the hub and the one node (issue 15, part 3): AES-256-GCM
 * under a key derived from the node's credential (both ends hold its hash; a rekey rotates it), bound to the call id.
 * On the bus a sealed object is {@code {"sealed": "<box>"}}: a member that sees the traffic learns call ids, tools
 * and sizes, nothing of what was asked or answered. The hub's signature and the node's proof cover the plain content,
 * so each end opens first and checks second. A call's stream chunks are sealed too, each bound to its call and
 * sequence number (a chunk cannot be moved to another call or place); they travel with the header
 * {@value #SEALED_HEADER}, and their proof covers the sealed chunk, so the hub checks first and opens second.
 */
public final class CallSeal {
  public static final String FIELD = "sealed";
  private static final String ARGS = "call-args";
  private static final String DATA = "call-result";
  private static final String CHUNK = "call-chunk";
  /** Marks a stream chunk whose data is sealed (a node not yet enrolled sends plain ones). */
  public static final String SEALED_HEADER = "fb-sealed";

  /** A stream chunk as it goes onto the bus: its (sealed) body and the headers it travels with. */
  public record Outgoing(StreamChunk chunk, io.vertx.core.eventbus.DeliveryOptions options) {
  }

  private CallSeal() {
  }

  public static boolean isSealed(JsonObject json) {
    return json != null && json.size() == 1 && json.getValue(FIELD) instanceof String;
  }

  /** The call with its arguments sealed for the node holding {@code credentialKey}. */
  public static ToolCall sealArgs(byte[] credentialKey, ToolCall call) {
    return call.withArgs(new JsonObject().put(FIELD, SealedBox.seal(credentialKey, ARGS, call.callId(), call.args())));
  }

  /** The call with its arguments opened; IllegalArgumentException when they were not sealed for this key and call. */
  public static ToolCall openArgs(byte[] credentialKey, ToolCall call) {
    return isSealed(call.args())
      ? call.withArgs(SealedBox.open(credentialKey, ARGS, call.callId(), call.args().getString(FIELD))) : call;
  }

  /** The result with its data sealed (a result without data is left as it is). */
  public static ToolResult sealData(byte[] credentialKey, ToolResult result) {
    return result.data() == null ? result
      : result.withData(new JsonObject().put(FIELD, SealedBox.seal(credentialKey, DATA, result.callId(), result.data())));
  }

  /** The chunk with its data sealed for the hub, bound to its call and sequence number. */
  public static StreamChunk sealChunk(byte[] credentialKey, StreamChunk c) {
    return new StreamChunk(c.callId(), c.seq(), c.stream(),
      SealedBox.seal(credentialKey, CHUNK, c.callId() + "#" + c.seq(), new JsonObject().put("data", c.data())), c.fin());
  }

  /** The chunk with its data opened; IllegalArgumentException when it was not sealed for this key, call and place. */
  public static StreamChunk openChunk(byte[] credentialKey, StreamChunk c) {
    return new StreamChunk(c.callId(), c.seq(), c.stream(),
      SealedBox.open(credentialKey, CHUNK, c.callId() + "#" + c.seq(), c.data()).getString("data"), c.fin());
  }

  /** The result with its data opened; IllegalArgumentException when it was not sealed for this key and call. */
  public static ToolResult openData(byte[] credentialKey, ToolResult result) {
    return isSealed(result.data())
      ? result.withData(SealedBox.open(credentialKey, DATA, result.callId(), result.data().getString(FIELD))) : result;
  }
}
