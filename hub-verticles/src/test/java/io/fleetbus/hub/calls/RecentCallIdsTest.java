package io.fleetbus.hub.calls;

import static org.junit.jupiter.api.Assertions.assertEquals;

import java.util.ArrayList;
import java.util.List;
import java.util.UUID;
import java.util.stream.IntStream;
import org.junit.jupiter.api.Test;

/** The audit check's list of recent calls: the latest ids, oldest first, each once, exactly as they were given. */
class RecentCallIdsTest {

  @Test
  void theLatestIdsAreKeptInOrderEachOnce() {
    RecentCallIds recent = new RecentCallIds(100);
    List<String> ids = new ArrayList<>();
    IntStream.range(0, 250).forEach(i -> ids.add(UUID.randomUUID().toString()));
    ids.forEach(recent::add);
    assertEquals(ids.subList(150, 250), recent.toList());
    // a resolved call recorded again takes a slot of the ring (the oldest goes) and is named once, where it came first
    recent.add(ids.get(200));
    assertEquals(ids.subList(151, 250), recent.toList());
  }

  @Test
  void idsThatAreNotCanonicalUuidsComeBackAsTheyWereAmongTheOthers() {
    RecentCallIds recent = new RecentCallIds(100);
    String upper = UUID.randomUUID().toString().toUpperCase();
    String a = UUID.randomUUID().toString();
    String b = UUID.randomUUID().toString();
    recent.add(a);
    recent.add("restored-call-7");
    recent.add(upper);
    recent.add(b);
    assertEquals(List.of(a, "restored-call-7", upper, b), recent.toList());
  }

  @Test
  void anEmptyListBeforeAnyCall() {
    assertEquals(List.of(), new RecentCallIds(10).toList());
  }
}
