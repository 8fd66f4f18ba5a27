package io.fleetbus.node.tools.network;

import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.node.tools.TestNode;
import io.vertx.core.json.JsonObject;
import java.net.NetworkInterface;
import java.nio.file.Path;
import java.util.Collections;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.io.TempDir;
import oshi.SystemInfo;

/** Real interfaces of this machine, checked against what the JDK sees. */
class NetworkInfoToolTest {
  @TempDir
  Path dir;

  @Test
  void interfacesMatchTheJdkAndLoopbackHas127001() throws Exception {
    JsonObject r = TestNode.run(new NetworkInfoTool(new SystemInfo()), "get_network_info", new JsonObject(),
      TestNode.settings("unprivileged", dir, null));
    var names = r.getJsonArray("interfaces").stream().map(i -> ((JsonObject) i).getString("name")).toList();
    for (NetworkInterface nif : Collections.list(NetworkInterface.getNetworkInterfaces())) {
      assertTrue(names.contains(nif.getName()), nif.getName() + " missing from " + names);
    }
    assertTrue(r.encode().contains("\"127.0.0.1\""), r.encodePrettily());
  }
}
