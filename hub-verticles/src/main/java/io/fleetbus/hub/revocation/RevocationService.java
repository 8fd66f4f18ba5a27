package io.fleetbus.hub.revocation;

import io.fleetbus.hub.auth.Revocation;
import io.vertx.core.Future;
import io.vertx.core.json.JsonObject;

/** Revoking user tokens, served by {@link RevocationVerticle} on {@link RevocationBus}. */
public interface RevocationService {

  /**
   * Revokes one token by its id, or every token of a subject issued until now; in force on this hub when the answer
   * comes, on the fleet's other hubs within about a second, stored to survive restarts. Answers the revocation as JSON.
   */
  Future<JsonObject> revoke(Revocation.Kind kind, String value, String by);

  /** The revocations in force, newest first: {@code {revocations: [...], count}}. */
  Future<JsonObject> list();
}
