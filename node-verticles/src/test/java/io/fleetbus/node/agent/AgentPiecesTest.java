package io.fleetbus.node.agent;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertFalse;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.settings.RuntimeConfig;
import io.fleetbus.node.state.AgentStatus;
import io.fleetbus.node.tools.TestNode;
import io.fleetbus.node.tools.ToolDispatcher;
import io.fleetbus.node.tools.system.SystemProbe;
import io.fleetbus.node.trust.NodeTrust;
import io.fleetbus.shared.bus.Addresses;
import io.fleetbus.shared.bus.FailureCode;
import io.fleetbus.shared.msg.Codecs;
import io.fleetbus.shared.msg.Control;
import io.fleetbus.shared.msg.Heartbeat;
import io.fleetbus.shared.msg.NodeHello;
import io.fleetbus.shared.msg.ToolCall;
import io.vertx.core.Vertx;
import io.vertx.core.eventbus.ReplyException;
import io.vertx.core.json.JsonObject;
import io.vertx.junit5.VertxExtension;
import io.vertx.junit5.VertxTestContext;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.concurrent.atomic.AtomicBoolean;
import org.junit.jupiter.api.BeforeEach;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;
import org.junit.jupiter.api.extension.ExtendWith;
import org.junit.jupiter.api.io.TempDir;

/**
 * The node agent's pieces on a plain (non-clustered) Vert.x, each on the event loop like in the verticle:
 * a node that is not enrolled takes no call and no instruction, heartbeats count up and stop, a hello
 * carries what the hub needs and a refusal leaves the node unregistered.
 */
@ExtendWith(VertxExtension.class)
@Timeout(10)
class AgentPiecesTest {
  @TempDir
  Path dir;
  private NodeSettings settings;
  private NodeTrust trust;
  private AgentState state;
  private CallsInFlight calls;

  @BeforeEach
  void setUp(Vertx vertx) throws Exception {
    Codecs.register(vertx);
    settings = TestNode.settings("root", dir, null);
    trust = NodeTrust.load(settings.nodeId(), settings.dataDir(), null, TestNode.CATALOG);
    state = new AgentState(AgentStatus.initial(System.currentTimeMillis(), 1000));
    calls = new CallsInFlight();
  }

  @Test
  void aNodeNotEnrolledRunsNoCallAndKeepsNothingInFlight(Vertx vertx, VertxTestContext test) {
    AtomicBoolean ran = new AtomicBoolean();
    ToolDispatcher dispatcher = new ToolDispatcher(vertx, TestNode.CATALOG, Map.of("get_agent_health", (args, c) -> {
      ran.set(true);
      return new JsonObject();
    }), settings);
    CallServer server = new CallServer(vertx, settings, dispatcher, trust, state, calls);
    ToolCall call = new ToolCall("c1", null, "alice", List.of("admin"), "get_agent_health", new JsonObject(),
      settings.nodeId(), null, 5000, false, null);
    vertx.runOnContext(v -> server.register()
      .compose(x -> vertx.eventBus().request(Addresses.nodeCall(settings.nodeId()), call))
      .onComplete(test.failing(err -> test.verify(() -> {
        assertEquals(FailureCode.UNAUTHORIZED.code, ((ReplyException) err).failureCode());
        assertTrue(err.getMessage().contains("not enrolled"), err.getMessage());
        assertFalse(ran.get(), "the tool must not run");
        assertFalse(calls.unfinished("c1"));
        test.completeNow();
      }))));
  }

  @Test
  void aNodeNotEnrolledTakesNoInstruction(Vertx vertx, VertxTestContext test) {
    ControlHandler control = new ControlHandler(vertx, settings, RuntimeConfig.none(settings), trust, state, calls,
      interval -> test.failNow("no heartbeat change may follow a refused instruction"));
    Control update = new Control(Control.CONFIG_UPDATE, new JsonObject().put("heartbeatIntervalMs", 50), null);
    vertx.runOnContext(v -> control.register()
      .compose(x -> vertx.eventBus().request(Addresses.nodeControl(settings.nodeId()), update))
      .onComplete(test.failing(err -> test.verify(() -> {
        assertEquals(FailureCode.UNAUTHORIZED.code, ((ReplyException) err).failureCode());
        assertEquals(1000, state.get().heartbeatIntervalMs(), "nothing changed");
        test.completeNow();
      }))));
  }

  @Test
  void heartbeatsCountUpUntilStopped(Vertx vertx, VertxTestContext test) {
    Heartbeats heartbeats = new Heartbeats(vertx, settings, new SystemProbe(), trust, state);
    List<Long> seen = new ArrayList<>();
    vertx.eventBus().<Heartbeat>consumer(Addresses.HEARTBEAT, m -> {
      seen.add(m.body().seq());
      if (seen.size() == 3) {
        heartbeats.stop();
        // beats sent before the stop may still be on their way (a slow machine); none may be sent after it
        long sent = state.get().heartbeatSeq();
        vertx.setTimer(200, t -> test.verify(() -> {
          assertTrue(sent >= 3, "sent " + sent);
          assertEquals(java.util.stream.LongStream.rangeClosed(1, sent).boxed().toList(), seen, "counted up, none after stop");
          assertEquals(sent, state.get().heartbeatSeq(), "no beat was sent after the stop");
          assertTrue(state.get().lastHeartbeatAt() > 0);
          // each beat's sample probes the data folder too (get_agent_health reads that from memory)
          assertEquals(Boolean.TRUE, state.get().dataDirWritable());
          assertTrue(state.get().dataDirProbedAt() > 0);
          test.completeNow();
        }));
      }
    }).completion().onSuccess(v -> vertx.runOnContext(x -> heartbeats.start(40)));
  }

  @Test
  void aHelloCarriesTheNodeAndARefusalLeavesItUnregistered(Vertx vertx, VertxTestContext test) {
    List<NodeHello> hellos = new ArrayList<>();
    vertx.eventBus().<NodeHello>consumer(Addresses.HUB_REGISTER, m -> {
      hellos.add(m.body());
      m.fail(FailureCode.UNAUTHORIZED.code, "unknown node");
    }).completion().onSuccess(v -> vertx.runOnContext(x -> {
      JsonObject confinement = new JsonObject().put("mode", "none").put("required", true).put("reason", "conf");
      HelloLoop hello = new HelloLoop(vertx, vertx.getOrCreateContext(), settings, RuntimeConfig.none(settings),
        List.of("get_agent_health"), HubView.NONE, trust, state, confinement,
        interval -> test.failNow("a refused hello registers nothing"));
      hello.start();
      // a retry waits a second: within 300 ms there is exactly the one hello
      vertx.setTimer(300, t -> test.verify(() -> {
        hello.stop();
        assertEquals(1, hellos.size(), "one hello, the retry waits a second");
        NodeHello sent = hellos.get(0);
        assertEquals(settings.nodeId(), sent.nodeId());
        assertEquals(List.of("get_agent_health"), sent.tools());
        assertEquals(confinement, sent.confinement(), "the hello says what the kernel lets this node's processes do");
        assertEquals("none", sent.auth().getString("method"), "no token, no credential: the hub says why");
        assertFalse(state.get().registered());
        assertTrue(state.get().lastHelloAt() > 0);
        test.completeNow();
      }));
    }));
  }

  @Test
  void aHubJoiningWhileTheNodeEnrollsDoesNotSpendTheTokenTwice(Vertx vertx, VertxTestContext test) throws Exception {
    NodeTrust enrolling = NodeTrust.load(settings.nodeId(), dir.resolve("enrolling"), io.fleetbus.shared.trust.Digests.randomSecret("fbe_"), TestNode.CATALOG);
    List<NodeHello> hellos = new ArrayList<>();
    List<Runnable> greeters = new ArrayList<>();
    HubView view = new HubView() {
      @Override
      public String memberId() {
        return "m1";
      }

      @Override
      public int hubCount() {
        return 1;
      }

      @Override
      public Runnable onNewHub(Runnable greet) {
        greeters.add(greet);
        return () -> { };
      }
    };
    HelloLoop[] loop = new HelloLoop[1];
    vertx.eventBus().<NodeHello>consumer(Addresses.HUB_REGISTER, m -> {
      hellos.add(m.body());
      if (hellos.size() == 1) {
        // the hub is still enrolling this node: meanwhile another hub joins
        greeters.forEach(Runnable::run);
        vertx.setTimer(300, t -> m.fail(FailureCode.UNAUTHORIZED.code, "enrollment token unknown"));
      } else {
        test.verify(() -> {
          loop[0].stop();
          assertEquals(2, hellos.size());
          assertEquals("enroll", hellos.get(0).auth().getString("method"));
          // switched off (the old loop), the joined hub's hello left at once, while the enrollment was unanswered
          assertTrue(System.currentTimeMillis() - hellos.get(0).auth().getLong("sentAt") >= 300,
            "the second hello waits until the enrollment is answered");
          test.completeNow();
        });
      }
    }).completion().onSuccess(v -> vertx.runOnContext(x -> {
      loop[0] = new HelloLoop(vertx, vertx.getOrCreateContext(), settings, RuntimeConfig.none(settings),
        List.of("get_agent_health"), view, enrolling, state, new JsonObject(), interval -> { });
      loop[0].start();
    }));
  }
}
