package io.fleetbus.node.confine;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.bus.FleetException;
import java.util.Iterator;
import java.util.List;
import org.junit.jupiter.api.Test;

/**
 * A launcher retired between a start's lookup and its turn (a folder its rules were built from changed, e.g. another
 * program's data folder beside the node's; or the allowlist changed) no longer fails the call: the start is looked up
 * again and runs under the current rules. Seen in TwoHubsTest: a call started while a hub was killed got 503 "send it
 * again".
 */
class LauncherRetireTest {
  private static final Runnable NO_RESTRICTION = () -> { };

  @Test
  void aStartWhoseLauncherWasRetiredRunsOnTheNextOne() throws Exception {
    ConfinedLauncher stale = new ConfinedLauncher("stale", NO_RESTRICTION);
    stale.retire();
    // the old way (one lookup): the start fails and the caller is told to send the call again
    assertThrows(ConfinedLauncher.Retired.class, () -> stale.start(new ProcessBuilder("true")));

    ConfinedLauncher fresh = new ConfinedLauncher("fresh", NO_RESTRICTION);
    Iterator<ConfinedLauncher> lookups = List.of(stale, fresh).iterator();
    try {
      Process p = LauncherPool.startOn(lookups::next, new ProcessBuilder("true"));
      assertEquals(0, p.waitFor(), "ran once, on the fresh launcher");
      assertFalse(lookups.hasNext(), "looked up twice");
    } finally {
      fresh.retire();
    }
  }

  @Test
  void launchersRetiredOverAndOverEndInA503ThatSaysWhy() {
    ConfinedLauncher stale = new ConfinedLauncher("stale", NO_RESTRICTION);
    stale.retire();
    int[] lookups = {0};
    FleetException e = assertThrows(FleetException.class, () -> LauncherPool.startOn(() -> {
      lookups[0]++;
      return stale;
    }, new ProcessBuilder("true")));
    assertEquals(FailureCode.NO_ELIGIBLE_NODE, e.code());
    assertEquals(3, lookups[0]);
    assertTrue(e.getMessage().contains("nothing ran; send it again"), e.getMessage());
  }
}
