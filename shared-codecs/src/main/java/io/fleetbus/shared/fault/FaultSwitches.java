package io.fleetbus.shared.fault;

import io.vertx.core.json.JsonObject;
import java.util.Arrays;
import java.util.Collections;
import java.util.EnumSet;
import java.util.List;
import java.util.Properties;
import java.util.Set;
import java.util.stream.Collectors;
import org.slf4j.Logger;

/**
 * The {@link FaultSwitch}es on in a process, read once: {@link #active()} takes its snapshot of the system properties
 * the first time it is asked (hub and node ask first thing at start) and never reads them again. Classes a test
 * builds take a set by constructor ({@link #of}); the rest ask {@link FaultSwitch#on()}. Immutable.
 */
public final class FaultSwitches {
  /** The system property that marks a test run: security switches are refused without it. */
  public static final String TEST_RUN = "fleetbus.testRun";

  private static volatile FaultSwitches active;

  private final Set<FaultSwitch> on;
  private final boolean testRun;

  private FaultSwitches(Set<FaultSwitch> on, boolean testRun) {
    Set<FaultSwitch> copy = EnumSet.noneOf(FaultSwitch.class);
    copy.addAll(on);
    this.on = Collections.unmodifiableSet(copy);
    this.testRun = testRun;
  }

  /** What {@code props} turn on ({@code true}, any case, as {@link Boolean#getBoolean}). */
  public static FaultSwitches read(Properties props) {
    Set<FaultSwitch> on = EnumSet.noneOf(FaultSwitch.class);
    for (FaultSwitch s : FaultSwitch.values()) {
      if (Boolean.parseBoolean(props.getProperty(s.property()))) {
        on.add(s);
      }
    }
    return new FaultSwitches(on, Boolean.parseBoolean(props.getProperty(TEST_RUN)));
  }

  /** This process's switches: the system properties as they were the first time anyone asked. */
  public static FaultSwitches active() {
    FaultSwitches a = active;
    if (a == null) {
      synchronized (FaultSwitches.class) {
        if (active == null) {
          active = read(System.getProperties());
        }
        a = active;
      }
    }
    return a;
  }

  /** None on (what production runs with). */
  public static FaultSwitches none() {
    return new FaultSwitches(EnumSet.noneOf(FaultSwitch.class), false);
  }

  /** For tests that build a class with some switches on. */
  public static FaultSwitches of(FaultSwitch... on) {
    Set<FaultSwitch> set = EnumSet.noneOf(FaultSwitch.class);
    set.addAll(Arrays.asList(on));
    return new FaultSwitches(set, true);
  }

  public boolean on(FaultSwitch s) {
    return on.contains(s);
  }

  /** Every switch on, in declaration order. */
  public Set<FaultSwitch> all() {
    return on;
  }

  /** The security switches on, in declaration order. */
  public List<FaultSwitch> security() {
    return on.stream().filter(FaultSwitch::security).toList();
  }

  /** Whether this is a test run ({@code -Dfleetbus.testRun=true}). */
  public boolean testRun() {
    return testRun;
  }

  /**
   * Refuses a process with a security switch on outside a test run: the message names every such switch.
   *
   * @param who what is starting ("hub", "node agent"), for the message
   */
  public FaultSwitches refuseOutsideTests(String who) {
    List<FaultSwitch> security = security();
    if (security.isEmpty() || testRun) {
      return this;
    }
    throw new Refused("refusing to start the " + who + ": security fault switch"
      + (security.size() > 1 ? "es " : " ") + security.stream().map(s -> "-D" + s.property() + "=true (" + s.breaks() + ")")
        .collect(Collectors.joining("; "))
      + " — these are for tests only: remove them from the java command line (FLEETBUS_JAVA_OPTS, the service unit);"
      + " a test run says so with -D" + TEST_RUN + "=true");
  }

  /** Every switch on, at ERROR (a knob at INFO): nobody runs with a fix off without the log saying so. */
  public FaultSwitches log(Logger log, String who) {
    for (FaultSwitch s : on) {
      if (s.kind() == FaultSwitch.Kind.KNOB) {
        log.info("{} runs with knob -D{}=true: {}", who, s.property(), s.breaks());
      } else {
        log.error("{} runs with {} fault switch -D{}=true: {}{}", who, s.security() ? "SECURITY" : "reliability",
          s.property(), s.breaks(), testRun ? " [test run]" : "");
      }
    }
    return this;
  }

  /** For {@code /ready}: each switch on by its short name, with its property, kind and what it breaks. */
  public JsonObject toJson() {
    JsonObject json = new JsonObject();
    on.forEach(s -> json.put(s.shortName(), new JsonObject().put("property", s.property())
      .put("kind", s.kind().name().toLowerCase(java.util.Locale.ROOT)).put("breaks", s.breaks())));
    return json;
  }

  /**
   * Tests only: {@link #active()} is {@code replacement} until the returned handle is closed (a switch flipped on a hub
   * running in the test's JVM). Refused unless this is a test run, so a production process's snapshot never changes.
   */
  public static Restore overrideInTest(FaultSwitches replacement) {
    FaultSwitches before = active();
    if (!before.testRun) {
      throw new IllegalStateException("fault switches are changed at run time only in a test run (-D" + TEST_RUN + "=true)");
    }
    active = new FaultSwitches(replacement.on, true);
    return () -> active = before;
  }

  /** A process refused to start: a security switch is on outside a test run. */
  public static final class Refused extends IllegalStateException {
    Refused(String message) {
      super(message);
    }
  }

  /** Puts the snapshot back. */
  @FunctionalInterface
  public interface Restore extends AutoCloseable {
    @Override
    void close();
  }

  @Override
  public String toString() {
    return on.stream().map(FaultSwitch::shortName).collect(Collectors.joining(",", "[", "]"));
  }
}
