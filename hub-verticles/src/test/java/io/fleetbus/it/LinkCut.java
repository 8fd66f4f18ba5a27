package io.fleetbus.it;

import java.io.IOException;
import java.io.UncheckedIOException;

/**
 * A silent cut of one {@link Netns.Link} (issue 34): every frame dropped in both directions while both ends stay up —
 * no RST, no ICMP, no carrier loss, as when a switch or a firewall between two machines starts eating packets. The
 * kernel here has no netem, prio qdisc, tc classifier or action (PLATFORM-FACTS.md, measured again 2026-11-28: {@code
 * clsact} loads but takes no {@code matchall}/{@code u32}/{@code basic} filter, and there is no iptables or nft): a
 * {@code tbf} qdisc with a one-byte bucket on the egress of each end drops every frame (each end's egress is the
 * other's ingress). {@link #heal} removes both; {@link #close} heals a link left cut.
 */
final class LinkCut implements AutoCloseable {
  private static final String[] DROP_ALL = {"root", "tbf", "rate", "8bit", "burst", "1", "limit", "1"};

  private final Netns netns;
  private final Netns.Link link;
  private boolean cut;

  LinkCut(Netns netns, Netns.Link link) {
    this.netns = netns;
    this.link = link;
  }

  /** Whether this machine can cut a link so (a cut and a heal of the link, done now); false with the reason printed. */
  boolean works() {
    try {
      cut();
      heal();
      return true;
    } catch (UncheckedIOException e) {
      System.out.println("no silent link cut on this machine (" + e.getMessage() + ")");
      return false;
    }
  }

  /** Drops every frame both ways from now on. */
  synchronized void cut() {
    try {
      netns.run(qdisc("add", "dev", link.hostDevice()));
      netns.inside(qdisc("add", "dev", link.innerDevice()));
      cut = true;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  /** Lets frames through again (what was queued or dropped is gone: TCP retransmits on its own). */
  synchronized void heal() {
    try {
      netns.run("tc", "qdisc", "del", "dev", link.hostDevice(), "root");
      netns.inside("tc", "qdisc", "del", "dev", link.innerDevice(), "root");
      cut = false;
    } catch (IOException e) {
      throw new UncheckedIOException(e);
    }
  }

  private static String[] qdisc(String verb, String dev, String device) {
    String[] command = new String[5 + DROP_ALL.length];
    System.arraycopy(new String[] {"tc", "qdisc", verb, dev, device}, 0, command, 0, 5);
    System.arraycopy(DROP_ALL, 0, command, 5, DROP_ALL.length);
    return command;
  }

  @Override
  public synchronized void close() {
    if (cut) {
      heal();
    }
  }
}
