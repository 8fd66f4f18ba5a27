package io.fleetbus.hub.enrollment;

import io.vertx.core.buffer.Buffer;
import io.vertx.core.json.JsonObject;
import java.util.function.Supplier;

/**
 * A hub event on its way to the other hubs ({@link HubEventChannel}): on this hub, its body holds the clear fields only;
 * what goes over the wire is the sealed form, made when Vert.x first writes the message to another member (its JSON
 * codec asks the body for its bytes: {@link #toBuffer}) and reused for every further member. A fleet of one hub, where
 * no other member listens on {@code fleet.hub.peer-events}, seals nothing; any member that listens gets only the
 * sealed form, as before (issue 37: the seal was 6-9 % of a one-hub fleet's CPU per call).
 */
final class SealedOnWire extends JsonObject {
  private final Supplier<JsonObject> seal;
  private Buffer wire;

  SealedOnWire(JsonObject clear, Supplier<JsonObject> seal) {
    super(clear.getMap());
    this.seal = seal;
  }

  /** The sealed form's bytes (what the event bus writes for another member): sealed once, on first use. */
  @Override
  public synchronized Buffer toBuffer() {
    if (wire == null) {
      wire = seal.get().toBuffer();
    }
    return wire;
  }

  /** A delivery on this hub: the clear fields (the one listener here, the hub's own relay, ignores it). */
  @Override
  public JsonObject copy() {
    return new JsonObject(new java.util.LinkedHashMap<>(getMap()));
  }
}
