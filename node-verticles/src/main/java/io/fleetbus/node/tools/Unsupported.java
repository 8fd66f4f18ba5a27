package io.fleetbus.node.tools;

import io.fleetbus.node.settings.NodeSettings;
import io.vertx.core.json.JsonObject;

/**
 * A seed's parameter that this node accepts but cannot honour on its platform (a window's visibility, a desktop
 * session, a Windows event id …): the call goes on and its result says so field by field under
 * {@code unsupported}, {@code {"<field>": "not supported on linux: <why, and what to use instead>"}}, rather than the
 * whole call failing with a 400.
 */
public final class Unsupported {
  public static final String FIELD = "unsupported";

  private Unsupported() {
  }

  /** Adds the note for {@code field} to {@code result} (which it returns) when {@code args} holds the field. */
  public static JsonObject note(JsonObject result, JsonObject args, String field, String why) {
    return args.containsKey(field) ? note(result, field, why) : result;
  }

  /** Adds the note for {@code field} to {@code result} and returns it. */
  public static JsonObject note(JsonObject result, String field, String why) {
    JsonObject notes = result.getJsonObject(FIELD);
    if (notes == null) {
      notes = new JsonObject();
      result.put(FIELD, notes);
    }
    notes.put(field, "not supported on " + NodeSettings.platform() + ": " + why);
    return result;
  }
}
