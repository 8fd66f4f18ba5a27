package io.fleetbus.node.tools.command;

import io.fleetbus.shared.bus.FailureCode;
import java.util.ArrayList;
import java.util.List;
import java.util.regex.Pattern;

/**
 * A second wall on sudo nodes: command lines and scripts that look like they wipe disks, file
 * systems or the machine are refused even when the first word is allowed. The allowlist decides;
 * this only catches what slipped past it.
 */
public final class DestructivePatterns {
  private static final List<String> BUILT_IN = List.of(
    "\\brm\\s+(-\\S+\\s+)*(-\\S*[rR]\\S*\\s+)(-\\S+\\s+)*(/|/\\*|~|\\$HOME)(\\s|$)",
    "\\brm\\s+(-\\S+\\s+)*--no-preserve-root\\b",
    "(^|[\\s;|&])dd\\s",
    "\\bmkfs(\\.\\w+)?\\b",
    "\\bwipefs\\b",
    "\\bshred\\b",
    "\\bchmod\\s+(-\\S+\\s+)*0?777\\b",
    "\\bchown\\s+(-\\S+\\s+)*-R\\s+\\S+\\s+/(\\s|$)",
    ":\\(\\)\\s*\\{",
    ">\\s*/dev/(sd|nvme|hd|vd|mmcblk)",
    "\\b(shutdown|reboot|halt|poweroff)\\b",
    "\\bsystemctl\\s+(-\\S+\\s+)*(reboot|poweroff|halt|kexec)\\b");

  private final List<Pattern> patterns;

  public DestructivePatterns(List<String> extra) {
    List<Pattern> all = new ArrayList<>();
    for (String p : BUILT_IN) {
      all.add(Pattern.compile(p));
    }
    for (String p : extra) {
      all.add(Pattern.compile(p));
    }
    this.patterns = List.copyOf(all);
  }

  public void check(String what, String text) {
    for (Pattern p : patterns) {
      if (p.matcher(text).find()) {
        throw FailureCode.FORBIDDEN.exception(what + " looks destructive (matches the node's rule /" + p.pattern()
          + "/), which a sudo node refuses; reboot_machine/shutdown_machine exist for power actions");
      }
    }
  }
}
