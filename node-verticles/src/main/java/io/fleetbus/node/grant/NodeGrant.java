package io.fleetbus.node.grant;

import io.fleetbus.node.settings.NodeSettings;
import io.fleetbus.node.settings.ToolSettings;
import java.io.IOException;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashSet;
import java.util.List;
import java.util.Set;

/**
 * The file part of a node's grant, computed once from its conf and capability tier: where its tools and the processes
 * it starts may reach. The file tools' checks ({@link io.fleetbus.node.tools.sandbox.PathScope}) and the kernel
 * ruleset's excluded folders ({@link io.fleetbus.node.confine.Confinement}) are both derived from this one object.
 *
 * @param tier           root, sudo or unprivileged
 * @param allowed        roots the tools may reach (an unprivileged node: its sandbox folder only), written and real forms
 * @param denied         folders left out of them: {@code paths.deny}, and the system folders on a sudo node
 * @param privateFolders what no tool and no started process ever reaches, at any tier, whatever the conf says
 * @param description    the scope in words, for refusals
 */
public record NodeGrant(String tier, List<Path> allowed, List<Path> denied, PrivateFolders privateFolders,
                        String description) {
  /** Folders a sudo node never touches. */
  public static final List<String> SYSTEM_PATHS = List.of("/etc", "/root", "/proc", "/sys", "/boot", "/dev");

  /** The grant of this node's tier and conf. */
  public static NodeGrant of(NodeSettings settings) {
    return of(settings, true);
  }

  /**
   * As above; {@code guardPrivate} false leaves the fleetbus private folders reachable like any other — only for the
   * tests that show what the guard stops. No conf key reaches this.
   */
  public static NodeGrant of(NodeSettings settings, boolean guardPrivate) {
    ToolSettings t = settings.tools();
    List<Path> named = new ArrayList<>();
    named.add(settings.dataDir());
    named.addAll(t.privatePaths());
    Path sandbox = settings.unprivileged() ? t.sandboxDir() : null;
    PrivateFolders privates = new PrivateFolders(named, sandbox, guardPrivate);
    if (settings.unprivileged()) {
      return new NodeGrant(settings.capabilityTier(), withRealForms(List.of(t.sandboxDir())),
        withRealForms(t.deniedPaths()), privates, "an unprivileged node only reaches its sandbox folder " + t.sandboxDir()
          + " (conf paths.sandboxDir; a sudo or root node reaches paths.allow: conf capabilityTier)");
    }
    List<Path> denied = new ArrayList<>(t.deniedPaths());
    String what = "a " + settings.capabilityTier() + " node reaches " + t.allowedRoots() + " (conf paths.allow)";
    if ("sudo".equals(settings.capabilityTier())) {
      SYSTEM_PATHS.forEach(p -> denied.add(Path.of(p)));
      what += " except the system folders " + SYSTEM_PATHS + " (a root node reaches them: conf capabilityTier)";
    }
    if (!t.deniedPaths().isEmpty()) {
      what += " and never " + t.deniedPaths() + " (conf paths.deny)";
    }
    return new NodeGrant(settings.capabilityTier(), withRealForms(t.allowedRoots()), withRealForms(denied), privates,
      what);
  }

  /**
   * What the kernel ruleset leaves out now: the denied folders and the private ones known at this moment (503 while a
   * private file has a second name elsewhere: see {@link PrivateFolders#refuseSecondNames()}).
   */
  public List<Path> excludedNow() {
    Set<Path> all = new LinkedHashSet<>(denied);
    all.addAll(privateFolders.forRuleset());
    privateFolders.refuseSecondNames();
    return List.copyOf(all);
  }

  /** Folders whose change makes a built ruleset stale: where private folders are searched (see PrivateFolders). */
  public List<Path> watchedNow() {
    return privateFolders.watched();
  }

  /**
   * The file part of the grant as the node reports it (for the node view): allowed roots, denied folders, the private
   * folders it names and the marker it honours. Paths only: nothing here is secret.
   */
  public io.vertx.core.json.JsonObject toJson() {
    return new io.vertx.core.json.JsonObject()
      .put("allow", new io.vertx.core.json.JsonArray(allowed.stream().map(Path::toString).distinct().toList()))
      .put("deny", new io.vertx.core.json.JsonArray(denied.stream().map(Path::toString).distinct().toList()))
      .put("private", new io.vertx.core.json.JsonArray(privateFolders.named().stream().map(Path::toString).toList()))
      .put("privateMarker", io.fleetbus.shared.files.PrivateMarker.FILE_NAME)
      .put("never", "the private folders and every folder holding " + io.fleetbus.shared.files.PrivateMarker.FILE_NAME
        + ": no tool, no started process, at any tier; no conf key allows it");
  }

  /** Each path absolute and normalised, and its real form too where it exists (a link is compared both ways). */
  static List<Path> withRealForms(List<Path> paths) {
    Set<Path> all = new LinkedHashSet<>();
    for (Path p : paths) {
      Path abs = p.toAbsolutePath().normalize();
      all.add(abs);
      try {
        all.add(abs.toRealPath());
      } catch (IOException e) {
        // not there (yet): the written form is all we can compare with
      }
    }
    return List.copyOf(all);
  }
}
