package io.fleetbus.shared.cluster;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertTrue;

import com.hazelcast.config.Config;
import com.hazelcast.config.EvictionConfig;
import com.hazelcast.config.EvictionPolicy;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.MaxSizePolicy;
import com.hazelcast.core.Hazelcast;
import com.hazelcast.core.HazelcastInstance;
import com.hazelcast.map.IMap;
import io.vertx.core.json.JsonObject;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.Test;

/**
 * The hubs' call records are bounded by memory, whatever cluster.xml an operator runs: one record holds its call's
 * whole result, and a count-bounded (or unbounded) map filled a hub's heap under load.
 */
class CallRecordsBudgetTest {

  @Test
  void theShippedConfigAndAnOldOneBothBudgetTheCallRecordsAndAnOperatorsOwnChoiceStays() {
    Config shippedConfig = ClusterLauncher.hazelcastConfig(new JsonObject(), true);
    MapConfig shipped = shippedConfig.getMapConfig("fleetbus.calls");
    assertEquals(MaxSizePolicy.PER_PARTITION, shipped.getEvictionConfig().getMaxSizePolicy());
    assertEquals(ClusterLauncher.CALL_RECORDS_PER_PARTITION, shipped.getEvictionConfig().getSize());
    MapConfig shippedLarge = shippedConfig.getMapConfig("fleetbus.calls.large");
    assertEquals(MaxSizePolicy.USED_HEAP_SIZE, shippedLarge.getEvictionConfig().getMaxSizePolicy());
    assertEquals(ClusterLauncher.LARGE_CALL_RECORDS_MIB, shippedLarge.getEvictionConfig().getSize());
    // the bound per hub: every partition's store (primary or backup) full of the largest small records, and the
    // large records' budget, within the 16 MiB the call records were given before (~200 B per entry beside its value)
    long worst = 271L * ClusterLauncher.CALL_RECORDS_PER_PARTITION * (ClusterLauncher.SMALL_CALL_RECORD_CHARS + 200)
      + ((long) ClusterLauncher.LARGE_CALL_RECORDS_MIB << 20);
    assertTrue(worst <= 16L << 20, "worst case " + worst + " bytes");

    Config old = new Config();
    old.addMapConfig(new MapConfig("fleetbus.*").setBackupCount(1));
    ClusterLauncher.sharedMapDefaults(old);
    EvictionConfig budget = old.getMapConfig("fleetbus.calls").getEvictionConfig();
    assertEquals(EvictionPolicy.LRU, budget.getEvictionPolicy());
    assertEquals(MaxSizePolicy.PER_PARTITION, budget.getMaxSizePolicy());
    assertEquals(ClusterLauncher.CALL_RECORDS_PER_PARTITION, budget.getSize());
    EvictionConfig largeBudget = old.getMapConfig("fleetbus.calls.large").getEvictionConfig();
    assertEquals(MaxSizePolicy.USED_HEAP_SIZE, largeBudget.getMaxSizePolicy());
    assertEquals(ClusterLauncher.LARGE_CALL_RECORDS_MIB, largeBudget.getSize());
    assertEquals(1, old.getMapConfig("fleetbus.calls").getBackupCount(), "the rest of the wildcard's settings stay");
    assertEquals(EvictionPolicy.NONE, old.getMapConfig("fleetbus.nodes").getEvictionConfig().getEvictionPolicy(),
      "only the call records are evicted");

    Config own = new Config();
    own.addMapConfig(new MapConfig("fleetbus.calls").setEvictionConfig(new EvictionConfig()
      .setEvictionPolicy(EvictionPolicy.LFU).setMaxSizePolicy(MaxSizePolicy.PER_NODE).setSize(1000)));
    ClusterLauncher.sharedMapDefaults(own);
    assertEquals(MaxSizePolicy.PER_NODE, own.getMapConfig("fleetbus.calls").getEvictionConfig().getMaxSizePolicy());
  }

  @Test
  void aFullBudgetEvictsTheOldestRecordsInsteadOfGrowing() {
    // the shipped policy with a small budget, on a real member: 40 MiB of 8 KiB records into a 4 MiB budget
    Config hz = new Config().setClusterName("budget-" + System.nanoTime());
    hz.getNetworkConfig().getJoin().getAutoDetectionConfig().setEnabled(false);
    hz.getNetworkConfig().getJoin().getMulticastConfig().setEnabled(false);
    hz.getNetworkConfig().getInterfaces().setEnabled(true).addInterface("127.0.0.1");
    hz.setProperty("hazelcast.phone.home.enabled", "false");
    hz.addMapConfig(new MapConfig("fleetbus.calls").setEvictionConfig(new EvictionConfig()
      .setEvictionPolicy(EvictionPolicy.LRU).setMaxSizePolicy(MaxSizePolicy.USED_HEAP_SIZE).setSize(4)));
    HazelcastInstance member = Hazelcast.newHazelcastInstance(hz);
    try {
      IMap<String, String> calls = member.getMap("fleetbus.calls");
      String record = "x".repeat(8 * 1024);
      for (int i = 0; i < 5_000; i++) {
        calls.set("call-" + i, record, 1, TimeUnit.DAYS);
      }
      long bytes = calls.getLocalMapStats().getOwnedEntryMemoryCost();
      assertTrue(bytes <= 6L * 1024 * 1024, "records held: " + calls.size() + ", " + bytes + " bytes");
      assertTrue(calls.size() < 5_000 && calls.containsKey("call-4999"), "the newest stay, the oldest went: "
        + calls.size());
    } finally {
      member.shutdown();
    }
  }
}
