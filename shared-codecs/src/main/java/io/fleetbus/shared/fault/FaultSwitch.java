package io.fleetbus.shared.fault;

/**
 * Every {@code -Dfleetbus.*} switch and knob fleetbus reads, in one place (as Vert.x's {@code SysProps}): the property,
 * its kind and one line of what it breaks or changes. Read once per process ({@link FaultSwitches#active()}); a
 * process with a {@link Kind#SECURITY} switch on refuses to start unless it is a test run
 * ({@code -Dfleetbus.testRun=true}). {@code docs/fault-switches.md} lists them; a test keeps it in step with this enum.
 */
public enum FaultSwitch {
  NO_AUTHZ("fleetbus.fault.noAuthz", Kind.SECURITY,
    "authorization off: every signed-in user lists and reads every user's calls, approvals and audit entries"),
  NO_CALL_SEALING("fleetbus.fault.noCallSealing", Kind.SECURITY,
    "call arguments cross the cluster in clear and a node takes unsealed calls: any member reads them"),
  NO_MEMBER_PINNING("fleetbus.fault.noMemberPinning", Kind.SECURITY,
    "cluster members are not pinned to the identity they proved: a rogue member answers in a node's place"),
  NO_LANDLOCK("fleetbus.fault.noLandlock", Kind.SECURITY,
    "commands and jobs run without Landlock: the kernel no longer keeps them inside their file scope"),
  NO_ARGUMENT_GRAMMAR("fleetbus.fault.noArgumentGrammar", Kind.SECURITY,
    "run_command skips the argument grammar: git -c alias=!…, tar --checkpoint-action, find -exec get through"),
  NO_FLEET_IDENTITY("fleetbus.fault.noFleetIdentity", Kind.SECURITY,
    "no fleet id: every hub joins cluster \"fleetbus\" and another fleet's hub is not stopped"),
  NO_INTRUDER_WATCH("fleetbus.fault.noIntruderWatch", Kind.SECURITY,
    "no cluster member is judged: an unknown member joins unseen (no WARN, metric or banner)"),
  RAW_FACTS_TO_FRONTENDS("fleetbus.fault.rawFactsToFrontends", Kind.SECURITY,
    "heartbeats and events reach clients, monitor and logs without their node's proof: forgeries pass"),
  UNBOUND_FACTS("fleetbus.fault.unboundFacts", Kind.SECURITY,
    "a node's proof counts for any fact: its chunks for another node's call and its events about approvals and calls pass"),
  CLEAR_HUB_EVENTS("fleetbus.fault.clearHubEvents", Kind.SECURITY,
    "hubs publish their events in clear to the whole cluster: any member hears user names, outcomes and decisions"),
  EDGE_TRUSTS_LINKS("fleetbus.fault.edgeTrustsLinks", Kind.SECURITY,
    "the edge endpoint relays any link's messages, hello or not, for whichever node they name"),
  UNPROVEN_FAILURES("fleetbus.fault.unprovenFailures", Kind.SECURITY,
    "a failure answer without the node's proof is believed: an impostor's text reaches callers"),
  LOGIN_UNBOUND("fleetbus.fault.loginUnbound", Kind.SECURITY,
    "the dashboard's sign-in callback is not bound to the browser that started it: an attacker's own code and state,"
      + " opened in a victim's browser, sign the victim in as the attacker (login CSRF)"),
  NO_SHARED_FRESHNESS("fleetbus.fault.noSharedFreshness", Kind.SECURITY,
    "shared map entries are taken whatever their version: a saved entry written back (a revoked credential, a denied"
      + " approval) counts again, and an unverifiable entry in fleetbus.hubs stops a starting hub"),
  NO_HUBLESS_REJOIN("fleetbus.fault.noHublessRejoin", Kind.SECURITY,
    "a node stays in a cluster where no member is a proven hub of its fleet (a rogue data member kept it there while its"
      + " hub restarted, or a merge left it a stale list of hubs): it stays offline until restarted"),
  KEEP_UNREAD_OPEN("fleetbus.fault.keepUnreadOpen", Kind.FAULT,
    "an HTTP error answered before the body was read leaves the connection open (as before issue 21)"),
  ANSWER_BEFORE_AUDIT("fleetbus.fault.answerBeforeAudit", Kind.FAULT,
    "a call is answered before its audit entry commits: a crash loses entries of answered calls"),
  IDEMPOTENCY_NO_WAIT("fleetbus.fault.idempotencyNoWait", Kind.FAULT,
    "a retry with the same Idempotency-Key does not wait for the first call's record (409 instead of its outcome)"),
  UNJOURNALED_KEYS("fleetbus.fault.unjournaledKeys", Kind.FAULT,
    "a node journals tier-2/3 calls only: a tier-1 call with an Idempotency-Key runs again under a new call id"),
  HUB_DECIDES_ALONE("fleetbus.fault.hubDecidesAlone", Kind.FAULT,
    "a deny or withdrawal is told without the target node journaling it: both halves of a split decide one approval"),
  ONLINE_AT_HELLO("fleetbus.fault.onlineAtHello", Kind.FAULT,
    "a node is listed online at its hello, before it can take calls (as before issue 21)"),
  NO_TREE_KILL("fleetbus.fault.noTreeKill", Kind.FAULT,
    "commands are not tracked as process trees: a killed or timed-out call's children live on"),
  SLOW_SPLIT_HEALING("fleetbus.fault.slowSplitHealing", Kind.FAULT,
    "a split heals on Hazelcast's own merge schedule (300 s, then every 120 s) and a hub that rejoins under a new"
      + " member id does not announce itself again: nodes do not reach it (as before issue 34)"),
  STAGES("fleetbus.stages", Kind.KNOB,
    "hub and node stamp each call's stages (the benchmark's where-the-time-goes row); costs a little per call"),
  SIGN_EVERY_CALL("fleetbus.signEveryCall", Kind.KNOB,
    "every call to a node process is signed with Ed25519 instead of its call key (for comparison; slower)");

  /** What turning it on does. */
  public enum Kind {
    /** Turns a security rule off: refused outside test runs. */
    SECURITY,
    /** Turns a reliability fix off (the behaviour before it): allowed, logged at ERROR. */
    FAULT,
    /** A setting that breaks nothing (measurement, comparison): logged at INFO. */
    KNOB
  }

  private final String property;
  private final Kind kind;
  private final String breaks;

  FaultSwitch(String property, Kind kind, String breaks) {
    this.property = property;
    this.kind = kind;
    this.breaks = breaks;
  }

  /** The system property, e.g. {@code fleetbus.fault.noAuthz}. */
  public String property() {
    return property;
  }

  /** The short name metrics and {@code /ready} use: the property without {@code fleetbus.fault.} or {@code fleetbus.}. */
  public String shortName() {
    return property.substring(property.lastIndexOf('.') + 1);
  }

  public Kind kind() {
    return kind;
  }

  public boolean security() {
    return kind == Kind.SECURITY;
  }

  /** One line: what it breaks (or, for a knob, what it changes). */
  public String breaks() {
    return breaks;
  }

  /** On in this process's snapshot ({@link FaultSwitches#active()}). */
  public boolean on() {
    return FaultSwitches.active().on(this);
  }
}
