package io.fleetbus.shared.bus;

/** An argument that carries its own wait (a tool call's timeout): {@link Ask#plusWaitOf()} adds it to the ask's. */
public interface TimeBound {
  long timeoutMs();
}
