package io.fleetbus.hub.edge;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import java.net.InetAddress;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * Issue 35: what an enrollment answer tells an edge node to link to. Never the wildcard a hub listens on, and loopback
 * only when the endpoint listens on loopback (that is all there is); edge.advertise wins over both.
 */
class EdgeAdvertisementTest {
  @Test
  void aWildcardListenerIsAdvertisedAsAMachineAddressNeverTheWildcard() {
    List<InetAddress> mine = EdgeAdvertisement.machineAddresses();
    String advertised = EdgeAdvertisement.of(null, "0.0.0.0", 7443);
    assertFalse(advertised.startsWith("0.0.0.0"), advertised);
    if (mine.isEmpty()) {
      assertEquals("127.0.0.1:7443", advertised, "a machine with no other address: loopback is all there is");
    } else {
      assertEquals(mine.get(0).getHostAddress() + ":7443", advertised.replace("[", "").replace("]", ""));
      assertTrue(EdgeAdvertisement.reachableFromOtherMachines(advertised), advertised);
    }
    assertFalse(EdgeAdvertisement.of(null, "::", 7443).startsWith("[::]"));
  }

  @Test
  void aMachineAddressOrNameIsAdvertisedAsItIsAndLoopbackOnlyWhenThatIsWhereItListens() {
    assertEquals("10.1.2.3:7443", EdgeAdvertisement.of(null, "10.1.2.3", 7443));
    assertEquals("hub-a.example.org:7443", EdgeAdvertisement.of("", "hub-a.example.org", 7443));
    assertEquals("127.0.0.1:7443", EdgeAdvertisement.of(null, "127.0.0.1", 7443));
    assertFalse(EdgeAdvertisement.reachableFromOtherMachines("127.0.0.1:7443"));
    assertTrue(EdgeAdvertisement.reachableFromOtherMachines("hub-a.example.org:7443"));
  }

  @Test
  void edgeAdvertiseWinsWithOrWithoutItsOwnPort() {
    assertEquals("edge.example.org:7443", EdgeAdvertisement.of("edge.example.org", "0.0.0.0", 7443));
    assertEquals("203.0.113.9:443", EdgeAdvertisement.of(" 203.0.113.9:443 ", "127.0.0.1", 7443));
    assertEquals("[2001:db8::7]:7443", EdgeAdvertisement.of("2001:db8::7", "0.0.0.0", 7443));
    assertEquals("[2001:db8::7]:443", EdgeAdvertisement.of("[2001:db8::7]:443", "0.0.0.0", 7443));
  }
}
