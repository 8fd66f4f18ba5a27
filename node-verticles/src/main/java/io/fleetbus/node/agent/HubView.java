package io.fleetbus.node.agent;

import com.hazelcast.cluster.MembershipEvent;
import com.hazelcast.cluster.MembershipListener;
import com.hazelcast.core.HazelcastInstance;
import java.util.UUID;

/**
 * How the node reaches its hubs, as the hello loop needs it: the cluster member that holds this node's consumers
 * (named in the hello, so the hubs send its calls only there), how many hubs it sees, and when a new hub is there to
 * greet. A cluster node is its own member and hears hubs join; an edge node's member is the hub its link reached.
 */
public interface HubView {
  /** No cluster and no link (tests, a plain event bus): no member, no hubs, nobody ever joins. */
  HubView NONE = new HubView() {
    @Override
    public String memberId() {
      return null;
    }

    @Override
    public int hubCount() {
      return 0;
    }

    @Override
    public Runnable onNewHub(Runnable greet) {
      return () -> { };
    }
  };

  /** The member holding this node's consumers, or null. */
  String memberId();

  int hubCount();

  /**
   * Where this node's event bus listens ({@code host:port}), told to the hubs in its proven hello so they reach it there
   * whatever the cluster's registry says (issue 32); null where the hubs do not reach it over the cluster.
   */
  default String busAddress() {
    return null;
  }

  /** Runs {@code greet} (on any thread) each time a new hub can be greeted; the answer stops that. */
  Runnable onNewHub(Runnable greet);

  /** A cluster member's view: itself, the data members (hubs), and hubs that join. */
  static HubView of(HazelcastInstance hz, java.util.function.Supplier<String> bus) {
    return new HubView() {
      @Override
      public String busAddress() {
        return bus.get();
      }

      @Override
      public String memberId() {
        return hz.getCluster().getLocalMember().getUuid().toString();
      }

      @Override
      public int hubCount() {
        return (int) hz.getCluster().getMembers().stream().filter(m -> !m.isLiteMember()).count();
      }

      @Override
      public Runnable onNewHub(Runnable greet) {
        UUID registration = hz.getCluster().addMembershipListener(new MembershipListener() {
          @Override
          public void memberAdded(MembershipEvent event) {
            if (!event.getMember().isLiteMember()) {
              greet.run();
            }
          }

          @Override
          public void memberRemoved(MembershipEvent event) {
            // liveness is judged by heartbeats and reply timeouts, not by membership
          }
        });
        return () -> {
          try {
            hz.getCluster().removeMembershipListener(registration);
          } catch (RuntimeException e) {
            // the member is gone already: so is its listener
          }
        };
      }
    };
  }
}
