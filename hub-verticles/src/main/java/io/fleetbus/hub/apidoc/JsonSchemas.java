package io.fleetbus.hub.apidoc;

import io.vertx.core.json.JsonArray;
import io.vertx.core.json.JsonObject;

/** Small JSON Schema 2020-12 builders for the route table and the OpenAPI document's components. */
public final class JsonSchemas {
  private JsonSchemas() {
  }

  public static JsonObject str() {
    return new JsonObject().put("type", "string");
  }

  public static JsonObject integer() {
    return new JsonObject().put("type", "integer");
  }

  public static JsonObject number() {
    return new JsonObject().put("type", "number");
  }

  public static JsonObject bool() {
    return new JsonObject().put("type", "boolean");
  }

  public static JsonObject epochMs() {
    return integer().put("description", "epoch milliseconds");
  }

  public static JsonObject nullable(String type) {
    return new JsonObject().put("type", new JsonArray().add(type).add("null"));
  }

  public static JsonObject enumOf(Object... values) {
    return new JsonObject().put("enum", new JsonArray(java.util.List.of(values)));
  }

  public static JsonObject constant(Object value) {
    return new JsonObject().put("const", value);
  }

  public static JsonObject array(JsonObject items) {
    return new JsonObject().put("type", "array").put("items", items);
  }

  public static JsonObject stringMap() {
    return new JsonObject().put("type", "object").put("additionalProperties", str());
  }

  public static JsonObject obj(JsonObject properties, String... required) {
    JsonObject o = new JsonObject().put("type", "object").put("properties", properties);
    return required.length == 0 ? o : o.put("required", new JsonArray(java.util.List.of((Object[]) required)));
  }

  public static JsonObject ref(String component) {
    return new JsonObject().put("$ref", "#/components/schemas/" + component);
  }
}
