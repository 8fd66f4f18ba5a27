package io.fleetbus.shared.msg;

import io.vertx.core.json.JsonObject;

/** A hub → node instruction on the node's control address: cancel, config_update or rekey. */
public record Control(String type, JsonObject body) {

  public static final String CANCEL = "cancel";
  public static final String CONFIG_UPDATE = "config_update";
  public static final String REKEY = "rekey";

  public Control {
    body = body == null ? new JsonObject() : body;
  }

  public JsonObject toJson() {
    return new JsonObject().put("type", type).put("body", body);
  }

  public static Control fromJson(JsonObject j) {
    return new Control(j.getString("type"), j.getJsonObject("body"));
  }
}
