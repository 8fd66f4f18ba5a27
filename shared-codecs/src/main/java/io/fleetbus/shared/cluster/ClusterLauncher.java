package io.fleetbus.shared.cluster;

import com.hazelcast.config.Config;
import com.hazelcast.config.FileSystemXmlConfig;
import com.hazelcast.config.MapConfig;
import com.hazelcast.config.MaxSizePolicy;
import com.hazelcast.config.MergePolicyConfig;
import com.hazelcast.config.TcpIpConfig;
import io.fleetbus.shared.fault.FaultSwitch;
import io.fleetbus.shared.msg.Codecs;
import io.vertx.core.Future;
import io.vertx.core.Vertx;
import io.vertx.core.VertxBuilder;
import io.vertx.core.VertxOptions;
import io.vertx.core.eventbus.EventBusOptions;
import io.vertx.core.json.JsonObject;
import io.vertx.core.metrics.MetricsOptions;
import io.vertx.core.spi.VertxMetricsFactory;
import io.vertx.spi.cluster.hazelcast.HazelcastClusterManager;
import java.io.FileNotFoundException;
import java.io.UncheckedIOException;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.Arrays;
import java.util.List;

/**
 * Starts a clustered Vertx for a hub (data member) or a node (lite member) from cluster.xml plus the
 * per-process overrides of its conf ({@code cluster} object) and environment.
 */
public final class ClusterLauncher {
  private ClusterLauncher() {
  }

  /** A started member: its Vertx and the cluster manager (for membership events). */
  public record Member(Vertx vertx, HazelcastClusterManager clusterManager) {
  }

  public static Future<Member> start(JsonObject conf, boolean liteMember) {
    return start(conf, liteMember, null, null);
  }

  /** Same, with a metrics implementation (the hub's Prometheus registry); both null means no metrics. */
  public static Future<Member> start(JsonObject conf, boolean liteMember, MetricsOptions metricsOptions,
                                     VertxMetricsFactory metricsFactory) {
    return start(conf, liteMember, metricsOptions, metricsFactory, null);
  }

  /**
   * Same; with {@code pins}, the event bus delivers what is sent to a pinned address only to the members the pins
   * allow ({@link MemberPins} on a hub, the proven hubs on a node). {@code -Dfleetbus.fault.noMemberPinning=true}
   * switches that off.
   */
  public static Future<Member> start(JsonObject conf, boolean liteMember, MetricsOptions metricsOptions,
                                     VertxMetricsFactory metricsFactory, Pins pins) {
    JsonObject cluster = conf.getJsonObject("cluster", new JsonObject());
    Config hz = hazelcastConfig(cluster, liteMember);
    HazelcastClusterManager manager = new HazelcastClusterManager(hz);
    String host = setting(cluster, "host", "FLEETBUS_CLUSTER_HOST", "127.0.0.1");
    EventBusOptions bus = new EventBusOptions().setHost(host).setPort(0).setClusterPublicHost(host);
    boolean tls = EventBusTls.apply(bus, cluster);
    VertxOptions options = new VertxOptions().setEventBusOptions(bus);
    String loops = System.getenv("FLEETBUS_EVENT_LOOPS");
    int eventLoops = loops != null && !loops.isBlank() ? Integer.parseInt(loops.strip()) : conf.getInteger("eventLoops", 0);
    if (eventLoops > 0) {
      options.setEventLoopPoolSize(eventLoops);
    }
    VertxBuilder builder = Vertx.builder();
    if (metricsFactory != null) {
      options.setMetricsOptions(metricsOptions);
      builder.withMetrics(metricsFactory);
    }
    boolean pinned = pins != null && !FaultSwitch.NO_MEMBER_PINNING.on();
    return builder.with(options).withClusterManager(pinned ? new PinnedClusterManager(manager, pins, member -> busNodeId(manager, member),
      busNode -> memberOf(manager, busNode)) : manager)
      .buildClustered()
      .map(vertx -> {
        if (pinned && pins instanceof MemberPins hubPins) {
          MemberPins.attach(vertx, hubPins);
        }
        if (tls) {
          org.slf4j.LoggerFactory.getLogger(ClusterLauncher.class).info("event bus TLS on [clientAuth: required, trustAll: false]");
        }
        Codecs.register(vertx);
        return new Member(vertx, manager);
      });
  }

  /**
   * The event bus's id of a cluster member: vertx-hazelcast keeps it as the member attribute {@code __vertx.nodeId}
   * (it is not the Hazelcast member uuid); null when no such member is in the cluster now.
   */
  static String busNodeId(HazelcastClusterManager manager, String memberUuid) {
    var hz = manager.getHazelcastInstance();
    if (hz == null) {
      return null;
    }
    return hz.getCluster().getMembers().stream().filter(m -> m.getUuid().toString().equals(memberUuid)).findFirst()
      .map(m -> m.getAttribute("__vertx.nodeId")).orElse(null);
  }

  /** The Hazelcast member uuid of the member whose event bus has id {@code busNodeId}; null when none is in the cluster. */
  static String memberOf(HazelcastClusterManager manager, String busNodeId) {
    var hz = manager.getHazelcastInstance();
    if (hz == null || busNodeId == null) {
      return null;
    }
    return hz.getCluster().getMembers().stream().filter(m -> busNodeId.equals(m.getAttribute("__vertx.nodeId")))
      .findFirst().map(m -> m.getUuid().toString()).orElse(null);
  }

  static Config hazelcastConfig(JsonObject cluster, boolean liteMember) {
    Path file = Path.of(setting(cluster, "config", "FLEETBUS_CLUSTER_CONFIG", "cluster.xml"));
    Config hz;
    try {
      hz = Files.exists(file) ? new FileSystemXmlConfig(file.toFile()) : new FileSystemXmlConfig(bundled());
    } catch (FileNotFoundException e) {
      throw new UncheckedIOException("cannot read Hazelcast config " + file.toAbsolutePath(), e);
    }
    String name = setting(cluster, "name", "FLEETBUS_CLUSTER_NAME", null);
    if (name != null) {
      hz.setClusterName(name);
    }
    String port = setting(cluster, "port", "FLEETBUS_CLUSTER_PORT", null);
    if (port != null) {
      hz.getNetworkConfig().setPort(Integer.parseInt(port));
    }
    String host = setting(cluster, "host", "FLEETBUS_CLUSTER_HOST", null);
    if (host != null) {
      hz.getNetworkConfig().getInterfaces().setEnabled(true).setInterfaces(List.of(host));
    }
    String members = setting(cluster, "members", "FLEETBUS_CLUSTER_MEMBERS", null);
    if (members != null && !members.isBlank()) {
      TcpIpConfig tcp = hz.getNetworkConfig().getJoin().getTcpIpConfig();
      tcp.setMembers(Arrays.stream(members.split(",")).map(String::trim).filter(s -> !s.isEmpty()).toList());
    }
    hz.setLiteMember(liteMember);
    sharedMapDefaults(hz);
    mergeSoon(hz);
    return hz;
  }

  /**
   * The call records' bound on each hub (cluster.xml {@code fleetbus.calls}): a record whose stored form is at most
   * {@link #SMALL_CALL_RECORD_CHARS} (nearly every call) goes to {@code fleetbus.calls}, at most this many per partition
   * (a constant-time check on each write; a heap budget there added up every partition's cost on each write), the
   * oldest first; 271 partitions x 20 x ~2.2 KiB is at most ~12 MiB per hub. A larger record goes to
   * {@code fleetbus.calls.large}, within {@link #LARGE_CALL_RECORDS_MIB}. A count of whole records alone would not bound
   * it: one holds its call's whole result, and 100,000 small ones already filled a hub's 256 MiB heap under load (issue
   * 17's bench: the hub froze in garbage collection and the cluster declared it dead).
   */
  public static final int CALL_RECORDS_PER_PARTITION = 20;
  /** The largest stored form (sealed JSON, characters) that goes to {@code fleetbus.calls}. */
  public static final int SMALL_CALL_RECORD_CHARS = 2048;
  /** The memory budget of the larger call records on each hub, in MiB ({@code fleetbus.calls.large}). */
  public static final int LARGE_CALL_RECORDS_MIB = 4;

  /**
   * The hubs' shared maps keep a backup and a merge policy even when an operator's cluster.xml predates them, and the
   * call records their bounds.
   */
  static void sharedMapDefaults(Config hz) {
    if (hz.getMapConfigs().keySet().stream().noneMatch(n -> n.startsWith("fleetbus."))) {
      hz.addMapConfig(new MapConfig("fleetbus.*").setBackupCount(1).setPerEntryStatsEnabled(true)
        .setMergePolicyConfig(new MergePolicyConfig("com.hazelcast.spi.merge.LatestUpdateMergePolicy", 100)));
      hz.addMapConfig(new MapConfig("fleetbus.idempotency").setBackupCount(1)
        .setMergePolicyConfig(new MergePolicyConfig("com.hazelcast.spi.merge.PutIfAbsentMergePolicy", 100)));
    }
    bounded(hz, "fleetbus.calls", MaxSizePolicy.PER_PARTITION, CALL_RECORDS_PER_PARTITION);
    bounded(hz, "fleetbus.calls.large", MaxSizePolicy.USED_HEAP_SIZE, LARGE_CALL_RECORDS_MIB);
  }

  /**
   * The map evicts its oldest entries beyond {@code size} unless cluster.xml gives it an eviction of its own: a copy of
   * what applies to it now (the "fleetbus.*" pattern when cluster.xml names no such map: changing that object would
   * evict every shared map).
   */
  private static void bounded(Config hz, String name, MaxSizePolicy policy, int size) {
    MapConfig map = new MapConfig(hz.findMapConfig(name)).setName(name);
    if (map.getEvictionConfig().getEvictionPolicy() == com.hazelcast.config.EvictionPolicy.NONE) {
      hz.addMapConfig(map.setEvictionConfig(new com.hazelcast.config.EvictionConfig()
        .setEvictionPolicy(com.hazelcast.config.EvictionPolicy.LRU).setMaxSizePolicy(policy).setSize(size)));
    }
  }

  /**
   * A split heals in seconds (issue 34) even with an operator's cluster.xml that predates it: the merge checks of the
   * shipped cluster.xml where it names none (Hazelcast's own: the first after 300 s, then every 120 s). {@code
   * -Dfleetbus.fault.slowSplitHealing=true} puts Hazelcast's own back, whatever cluster.xml says.
   */
  static void mergeSoon(Config hz) {
    boolean slow = FaultSwitch.SLOW_SPLIT_HEALING.on();
    for (String[] p : new String[][] {{"hazelcast.merge.first.run.delay.seconds", "10", "300"},
      {"hazelcast.merge.next.run.delay.seconds", "5", "120"}}) {
      if (slow) {
        hz.setProperty(p[0], p[2]);
      } else if (hz.getProperty(p[0]) == null) {
        hz.setProperty(p[0], p[1]);
      }
    }
  }

  /** cluster.xml of the working folder, else the copy shipped in the jar. */
  private static java.io.File bundled() throws FileNotFoundException {
    try (var in = ClusterLauncher.class.getResourceAsStream("/cluster.xml")) {
      if (in == null) {
        throw new FileNotFoundException("no cluster.xml in the working folder or the jar");
      }
      Path tmp = Files.createTempFile("fleetbus-cluster", ".xml");
      Files.copy(in, tmp, java.nio.file.StandardCopyOption.REPLACE_EXISTING);
      tmp.toFile().deleteOnExit();
      return tmp.toFile();
    } catch (java.io.IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String setting(JsonObject cluster, String key, String env, String fallback) {
    String fromEnv = System.getenv(env);
    if (fromEnv != null && !fromEnv.isBlank()) {
      return fromEnv;
    }
    Object v = cluster.getValue(key);
    return v == null ? fallback : v.toString();
  }
}
