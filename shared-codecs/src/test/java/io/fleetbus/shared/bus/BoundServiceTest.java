package io.fleetbus.shared.bus;

import static org.junit.jupiter.api.Assertions.assertEquals;
import static org.junit.jupiter.api.Assertions.assertNotSame;
import static org.junit.jupiter.api.Assertions.assertSame;
import static org.junit.jupiter.api.Assertions.assertThrows;
import static org.junit.jupiter.api.Assertions.assertTrue;

import io.vertx.core.AsyncResult;
import io.vertx.core.Future;
import io.vertx.core.Handler;
import io.vertx.core.Promise;
import io.vertx.core.Vertx;
import io.vertx.core.json.JsonObject;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.CopyOnWriteArrayList;
import java.util.concurrent.TimeUnit;
import org.junit.jupiter.api.AfterAll;
import org.junit.jupiter.api.BeforeAll;
import org.junit.jupiter.api.Test;
import org.junit.jupiter.api.Timeout;

/** {@link LocalServices#client} and {@link LocalServices#bind}: one generic adapter for every typed hub service. */
@Timeout(value = 30, unit = TimeUnit.SECONDS)
class BoundServiceTest {
  /** A record that travels by reference. */
  record Job(String name, long timeoutMs) implements TimeBound {
  }

  public interface Jobs {
    Future<String> describe(String nodeId, long waitMs, List<String> roles);

    @Ask(address = "t.jobs.run-here", timeoutMs = 100, plusWaitOf = 0)
    Future<Job> run(Job job);

    Future<List<Job>> all();

    Future<JsonObject> touch(JsonObject body);

    void forget(String name);

    @Ask(timeoutMs = 100)
    void commit(String name, Handler<AsyncResult<Void>> answered);

    default Future<Void> commit(String name) {
      Promise<Void> done = Promise.promise();
      commit(name, done::handle);
      return done.future();
    }

    Future<Void> broken();
  }

  static final class JobsHere implements Jobs {
    final List<String> forgotten = new CopyOnWriteArrayList<>();
    volatile Job seen;
    volatile JsonObject touched;

    @Override
    public Future<String> describe(String nodeId, long waitMs, List<String> roles) {
      return Future.succeededFuture(nodeId + "/" + waitMs + "/" + roles);
    }

    @Override
    public Future<Job> run(Job job) {
      seen = job;
      // answers within the job's own wait, after the ask's 100 ms
      Promise<Job> done = Promise.promise();
      Vertx.currentContext().owner().setTimer(300, t -> done.complete(job));
      return done.future();
    }

    @Override
    public Future<List<Job>> all() {
      return Future.succeededFuture(List.of(new Job("a", 1), new Job("b", 2)));
    }

    @Override
    public Future<JsonObject> touch(JsonObject body) {
      touched = body;
      return Future.succeededFuture(body.put("touched", true));
    }

    @Override
    public void forget(String name) {
      forgotten.add(name);
    }

    @Override
    public void commit(String name, Handler<AsyncResult<Void>> answered) {
      answered.handle(name.isEmpty() ? Future.failedFuture(FailureCode.BAD_REQUEST.exception("no name"))
        : Future.succeededFuture());
    }

    @Override
    public Future<Void> broken() {
      throw FailureCode.CONFLICT.exception("already broken");
    }
  }

  static Vertx vertx;
  static final JobsHere HERE = new JobsHere();
  static Jobs jobs;

  @BeforeAll
  static void bind() throws Exception {
    vertx = Vertx.vertx();
    LocalServices.bind(vertx, Jobs.class, HERE, "t.jobs").await(10, TimeUnit.SECONDS);
    jobs = LocalServices.client(vertx, Jobs.class, "t.jobs");
  }

  @AfterAll
  static void close() throws Exception {
    vertx.close().await(10, TimeUnit.SECONDS);
  }

  private static <T> T await(Future<T> f) throws Exception {
    return f.await(10, TimeUnit.SECONDS);
  }

  @Test
  void severalArgumentsArriveAsSent() throws Exception {
    assertEquals("n1/250/[admin, viewer]", await(jobs.describe("n1", 250, List.of("admin", "viewer"))));
  }

  @Test
  void aRecordTravelsByReferenceAndItsOwnWaitIsAddedToTheAsk() throws Exception {
    Job job = new Job("long", 1000);
    assertSame(job, await(jobs.run(job)), "answered after 300 ms although the ask's own timeout is 100 ms");
    assertSame(job, HERE.seen);
  }

  @Test
  void aListAnswerArrivesAsAList() throws Exception {
    assertEquals(List.of(new Job("a", 1), new Job("b", 2)), await(jobs.all()));
  }

  @Test
  void jsonIsCopiedBothWays() throws Exception {
    JsonObject sent = new JsonObject().put("n", 1);
    JsonObject answer = await(jobs.touch(sent));
    assertEquals(new JsonObject().put("n", 1).put("touched", true), answer);
    assertEquals(new JsonObject().put("n", 1), sent, "the sender's object is not the receiver's");
    assertNotSame(HERE.touched, answer);
  }

  @Test
  void aTellGoesOutWithoutAnAnswerAndAFailureKeepsItsCode() throws Exception {
    jobs.forget("x");
    // a later ask to the same verticle is served after the tell
    await(jobs.commit("after-x"));
    assertEquals(List.of("x"), new ArrayList<>(HERE.forgotten));
    Throwable refused = assertThrows(Exception.class, () -> await(jobs.commit("")));
    assertEquals(FailureCode.BAD_REQUEST, FailureCode.of(refused));
    assertEquals("no name", refused.getMessage());
  }

  @Test
  void aThrowingOperationFailsWithItsCodeInsteadOfTimingOut() {
    Throwable err = assertThrows(Exception.class, () -> await(jobs.broken()));
    assertEquals(FailureCode.CONFLICT, FailureCode.of(err));
    assertEquals("already broken", err.getMessage());
  }

  @Test
  void anUnboundServiceAnswers503() {
    Jobs nobody = LocalServices.client(vertx, Jobs.class, "t.nobody");
    Throwable err = assertThrows(Exception.class, () -> await(nobody.all()));
    assertEquals(FailureCode.NO_ELIGIBLE_NODE, FailureCode.of(err));
    assertTrue(nobody.toString().contains("t.nobody"), nobody.toString());
  }

  @Test
  void aTellToAServiceNeverBoundOnItsVertxGoesNowhere() throws Exception {
    Vertx bare = Vertx.vertx();
    try {
      Jobs unbound = LocalServices.client(bare, Jobs.class, "t.jobs");
      unbound.forget("y"); // no codec, no consumer: dropped like a send nobody hears, not thrown at the caller
      Throwable err = assertThrows(Exception.class, () -> await(unbound.all()));
      assertEquals(FailureCode.NO_ELIGIBLE_NODE, FailureCode.of(err));
    } finally {
      bare.close().await(10, TimeUnit.SECONDS);
    }
  }

  public interface Clashing {
    Future<Void> list();

    @Ask(address = "t.c.list")
    Future<Void> listAll();
  }

  @Test
  void twoOperationsOnOneAddressAreRefusedAtBinding() {
    IllegalArgumentException err = assertThrows(IllegalArgumentException.class,
      () -> LocalServices.client(vertx, Clashing.class, "t.c"));
    assertTrue(err.getMessage().contains("t.c.list"), err.getMessage());
  }
}
