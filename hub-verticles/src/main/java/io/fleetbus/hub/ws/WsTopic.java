package io.fleetbus.hub.ws;

import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonObject;
import java.util.Locale;

/** What a socket may subscribe to, and which bus address and events feed it. */
enum WsTopic {
  NODES(Addresses.EVENTS, "node."),
  APPROVALS(Addresses.EVENTS, "approval."),
  HEARTBEATS(Addresses.HEARTBEAT, null);

  private final String address;
  private final String eventPrefix;

  WsTopic(String address, String eventPrefix) {
    this.address = address;
    this.eventPrefix = eventPrefix;
  }

  static WsTopic of(String name) {
    if (name != null) {
      for (WsTopic t : values()) {
        if (t.name().equalsIgnoreCase(name)) {
          return t;
        }
      }
    }
    throw FailureCode.BAD_REQUEST.exception("unknown topic '" + name + "'; use nodes, approvals or heartbeats");
  }

  String address() {
    return address;
  }

  boolean wants(JsonObject event) {
    return eventPrefix == null || event.getString("type", "").startsWith(eventPrefix);
  }

  String topicName() {
    return name().toLowerCase(Locale.ROOT);
  }
}
