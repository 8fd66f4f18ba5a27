package io.fleetbus.it;

import java.io.IOException;
import java.util.ArrayList;
import java.util.List;
import java.util.concurrent.ThreadLocalRandom;
import java.util.concurrent.TimeUnit;

/**
 * A network namespace for a test (issue 20): one veth pair to the host, {@link #hostAddress()} on the host's end and
 * {@link #address()} inside, and nothing else: a process started in it reaches only what listens on the host's end of
 * that pair (the hubs here bind their cluster, event-bus and HTTP ports to loopback, so only an edge endpoint bound to
 * the pair's address is reachable). Needs root and {@code ip}; {@link #tryCreate} answers null where the machine does
 * not allow it.
 */
final class Netns implements AutoCloseable {
  private final String name;
  private final String hostLink;
  private final String hostAddress;
  private final String address;
  /** A device on each side that swallows what is routed to it (a veth whose peer stays down), made by the first cut. */
  private final String hostHole;
  private final String innerHole;
  private boolean holes;

  private Netns(String name, String hostLink, String hostAddress, String address) {
    this.name = name;
    this.hostLink = hostLink;
    this.hostAddress = hostAddress;
    this.address = address;
    this.hostHole = hostLink.replace("fbh", "fbx");
    this.innerHole = hostLink.replace("fbh", "fby");
  }

  /** A new namespace, or null (with the reason on stdout) where it cannot be made. */
  static Netns tryCreate() {
    String tag = Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xffffff));
    int third = ThreadLocalRandom.current().nextInt(0, 256);
    int fourth = ThreadLocalRandom.current().nextInt(0, 64) * 4;
    Netns ns = new Netns("fb-edge-" + tag, "fbh" + tag, "10.231." + third + "." + (fourth + 1),
      "10.231." + third + "." + (fourth + 2));
    String inner = "fbn" + tag;
    try {
      ns.run("ip", "netns", "add", ns.name);
      ns.run("ip", "link", "add", ns.hostLink, "type", "veth", "peer", "name", inner);
      ns.run("ip", "link", "set", inner, "netns", ns.name);
      ns.run("ip", "addr", "add", ns.hostAddress + "/30", "dev", ns.hostLink);
      ns.run("ip", "link", "set", ns.hostLink, "up");
      ns.run("ip", "netns", "exec", ns.name, "ip", "addr", "add", ns.address + "/30", "dev", inner);
      ns.run("ip", "netns", "exec", ns.name, "ip", "link", "set", inner, "up");
      ns.run("ip", "netns", "exec", ns.name, "ip", "link", "set", "lo", "up");
      return ns;
    } catch (IOException | RuntimeException e) {
      System.out.println("no network namespace on this machine (" + e.getMessage() + "): the edge node runs beside"
        + " the hubs instead");
      ns.close();
      return null;
    }
  }

  /** The host's end of the pair: what the namespace can reach. */
  String hostAddress() {
    return hostAddress;
  }

  /** The namespace's own address. */
  String address() {
    return address;
  }

  /** What starts a command inside (it execs the command in place). */
  List<String> exec() {
    return List.of("ip", "netns", "exec", name);
  }

  /** Whether a TCP connection from inside the namespace to {@code host:port} is accepted (within 3 s). */
  boolean reaches(String host, int port) throws IOException {
    List<String> probe = new ArrayList<>(exec());
    probe.addAll(List.of("timeout", "3", "bash", "-c", "exec 3<>/dev/tcp/" + host + "/" + port));
    Process p = new ProcessBuilder(probe).redirectErrorStream(true).start();
    try {
      return p.waitFor(10, TimeUnit.SECONDS) && p.exitValue() == 0;
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      return false;
    }
  }

  /**
   * Cuts the pair silently, both ways, as a pulled cable or a NAT that forgot the connection does: every packet is
   * dropped and neither side hears of it (no RST, no ICMP, no local error: each side's kernel hands its packets to a
   * device that swallows them, so TCP retransmits with its usual backoff). The kernel here has neither netem nor tc's
   * drop action: a /32 route on each side to a veth whose peer is down does it. {@link #heal()} removes the routes.
   */
  void cut() throws IOException {
    if (!holes) {
      run("ip", "link", "add", hostHole, "type", "veth", "peer", "name", hostHole + "p");
      run("ip", "link", "set", hostHole, "arp", "off", "up");
      inside("ip", "link", "add", innerHole, "type", "veth", "peer", "name", innerHole + "p");
      inside("ip", "link", "set", innerHole, "arp", "off", "up");
      holes = true;
    }
    run("ip", "route", "add", address + "/32", "dev", hostHole);
    inside("ip", "route", "add", hostAddress + "/32", "dev", innerHole);
  }

  /** Ends a {@link #cut()}: packets cross again (what was sent meanwhile is lost, and retransmitted by TCP). */
  void heal() throws IOException {
    run("ip", "route", "del", address + "/32", "dev", hostHole);
    inside("ip", "route", "del", hostAddress + "/32", "dev", innerHole);
  }

  private void inside(String... command) throws IOException {
    List<String> all = new ArrayList<>(exec());
    all.addAll(List.of(command));
    run(all.toArray(String[]::new));
  }

  private void run(String... command) throws IOException {
    Process p = new ProcessBuilder(command).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), java.nio.charset.StandardCharsets.UTF_8).strip();
    try {
      if (!p.waitFor(10, TimeUnit.SECONDS) || p.exitValue() != 0) {
        throw new IOException(String.join(" ", command) + ": " + out);
      }
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
      throw new IOException("interrupted", e);
    }
  }

  @Override
  public void close() {
    // deleting the namespace deletes its end of the pair, and with it the host's end
    try {
      if (holes) {
        run("ip", "link", "del", hostHole);
      }
      run("ip", "netns", "del", name);
    } catch (IOException e) {
      System.out.println("network namespace " + name + " not removed: " + e.getMessage());
    }
  }
}
