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
 * not allow it. {@link #addLink} adds another pair (its own /30), e.g. a control path a {@link LinkCut} leaves alone.
 */
final class Netns implements AutoCloseable {
  /** One veth pair: the host's device and address, the namespace's device and address (a /30 of 10.231/16). */
  record Link(String hostDevice, String innerDevice, String hostAddress, String address) {
  }

  private final String name;
  private final String hostLink;
  private final String hostAddress;
  private final String address;
  private final String tag;
  private final int third;
  private final int fourth;
  private final List<Link> links = new ArrayList<>();

  private Netns(String name, String tag, int third, int fourth) {
    this.name = name;
    this.tag = tag;
    this.third = third;
    this.fourth = fourth;
    this.hostLink = "fbh" + tag;
    this.hostAddress = "10.231." + third + "." + (fourth + 1);
    this.address = "10.231." + third + "." + (fourth + 2);
  }

  /** A new namespace, or null (with the reason on stdout) where it cannot be made. */
  static Netns tryCreate() {
    String tag = Integer.toHexString(ThreadLocalRandom.current().nextInt(0x100000, 0xffffff));
    int third = ThreadLocalRandom.current().nextInt(0, 256);
    int fourth = ThreadLocalRandom.current().nextInt(0, 64) * 4;
    Netns ns = new Netns("fb-edge-" + tag, tag, third, fourth);
    try {
      ns.run("ip", "netns", "add", ns.name);
      ns.pair(new Link(ns.hostLink, "fbn" + tag, ns.hostAddress, ns.address));
      ns.run("ip", "netns", "exec", ns.name, "ip", "link", "set", "lo", "up");
      return ns;
    } catch (IOException | RuntimeException e) {
      System.out.println("no network namespace on this machine (" + e.getMessage() + "): the edge node runs beside"
        + " the hubs instead");
      ns.close();
      return null;
    }
  }

  /** Makes {@code link}'s veth pair, its inner end moved into the namespace, both ends addressed and up. */
  private void pair(Link link) throws IOException {
    run("ip", "link", "add", link.hostDevice(), "type", "veth", "peer", "name", link.innerDevice());
    run("ip", "link", "set", link.innerDevice(), "netns", name);
    run("ip", "addr", "add", link.hostAddress() + "/30", "dev", link.hostDevice());
    run("ip", "link", "set", link.hostDevice(), "up");
    inside("ip", "addr", "add", link.address() + "/30", "dev", link.innerDevice());
    inside("ip", "link", "set", link.innerDevice(), "up");
    links.add(link);
  }

  /** The first pair (the one {@link #hostAddress()} and {@link #address()} are on). */
  Link link() {
    return links.get(0);
  }

  /** Another veth pair to the host, on the next /30: traffic between its two addresses takes only this pair. */
  Link addLink() throws IOException {
    int n = links.size();
    int base = (fourth + 4 * n) % 256;
    String suffix = n + tag;
    Link link = new Link("fbh" + suffix, "fbn" + suffix, "10.231." + third + "." + (base + 1),
      "10.231." + third + "." + (base + 2));
    pair(link);
    return link;
  }

  /** Runs a command inside the namespace (fails with its output). */
  void inside(String... command) throws IOException {
    List<String> full = new ArrayList<>(exec());
    full.addAll(List.of(command));
    run(full.toArray(String[]::new));
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

  /** Runs a command on the host (fails with its output). */
  void run(String... command) throws IOException {
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
      run("ip", "netns", "del", name);
    } catch (IOException e) {
      System.out.println("network namespace " + name + " not removed: " + e.getMessage());
    }
  }
}
