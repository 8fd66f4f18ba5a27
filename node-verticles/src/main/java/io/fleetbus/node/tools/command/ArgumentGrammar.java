package io.fleetbus.node.tools.command;

import io.fleetbus.shared.bus.FailureCode;
import java.util.List;
import java.util.Map;
import java.util.Set;
import java.util.function.Consumer;

/**
 * The early, readable "no" for run_command (the kernel is the boundary — see Confinement): options through which
 * allowlisted programs run other programs or reach files the caller did not name (derived from the GTFOBins
 * catalogue), programs that are interpreters (only run_script runs those), pagers and editors, and wrappers whose
 * wrapped command does not pass the same checks. Every refusal is a 403 naming the program and the option.
 */
public final class ArgumentGrammar {
  /** Interpreters: a script runs through run_script (its interpreter confined, its text approved), never here. */
  static final Set<String> INTERPRETERS = Set.of("sh", "bash", "dash", "zsh", "ksh", "csh", "tcsh", "fish", "busybox",
    "python", "python2", "python3", "perl", "ruby", "node", "nodejs", "awk", "gawk", "mawk", "nawk", "sed", "lua",
    "php", "tclsh", "wish", "expect", "irb", "jjs", "jshell", "rlwrap", "socat", "nc", "ncat", "gdb", "pwsh");
  /** Pagers and editors: each can open a shell or any file. */
  static final Set<String> INTERACTIVE = Set.of("less", "more", "most", "pg", "vi", "vim", "nvim", "view", "ex", "ed",
    "nano", "pico", "emacs", "joe", "mc", "man", "info", "top", "htop", "screen", "tmux", "script");
  /** Wrappers that change privileges or the root: never. */
  static final Set<String> ELEVATING = Set.of("sudo", "su", "doas", "pkexec", "chroot", "unshare", "nsenter", "capsh",
    "setpriv", "runuser", "strace", "ltrace", "watch", "flock", "taskset", "ionice", "systemd-run", "at", "crontab");
  /** Wrappers whose wrapped command is checked like the first word: name → options that take a value. */
  static final Map<String, Set<String>> WRAPPERS = Map.of(
    "env", Set.of("-u", "--unset", "-C", "--chdir"),
    "nice", Set.of("-n", "--adjustment"),
    "nohup", Set.of(),
    "setsid", Set.of(),
    "stdbuf", Set.of("-i", "-o", "-e"),
    "timeout", Set.of("-s", "--signal", "-k", "--kill-after"),
    "xargs", Set.of("-a", "--arg-file", "-d", "--delimiter", "-E", "-e", "-I", "-i", "-L", "-l", "-n", "--max-args",
      "-P", "--max-procs", "-s", "--max-chars"));

  private ArgumentGrammar() {
  }

  /** Checks argv (program first); {@code allowlisted} checks a wrapped program's name the way run_command's first word is. */
  public static void check(List<String> argv, Consumer<String> allowlisted) {
    String program = argv.get(0);
    String name = program.substring(program.lastIndexOf('/') + 1);
    List<String> args = argv.subList(1, argv.size());
    if (INTERPRETERS.contains(name) || name.startsWith("python")) {
      throw refuse(name + " is an interpreter: run scripts with run_script (its text is approved and confined there)");
    }
    if (INTERACTIVE.contains(name)) {
      throw refuse(name + " is a pager or editor (it can open a shell or any file): not started by run_command");
    }
    if (ELEVATING.contains(name)) {
      throw refuse(name + " runs another program with other privileges, root or tracing: not started by run_command");
    }
    if (WRAPPERS.containsKey(name)) {
      wrapped(name, args, allowlisted);
      return;
    }
    switch (name) {
      case "git" -> git(args);
      case "tar" -> tar(args);
      case "find" -> find(args);
      default -> {
        // programs without a grammar here: the allowlist, rules and the kernel decide
      }
    }
  }

  private static void wrapped(String wrapper, List<String> args, Consumer<String> allowlisted) {
    Set<String> takesValue = WRAPPERS.get(wrapper);
    int i = 0;
    boolean durationDone = !"timeout".equals(wrapper);
    while (i < args.size()) {
      String a = args.get(i);
      if ("env".equals(wrapper) && (a.equals("-S") || a.startsWith("--split-string") || a.startsWith("-S"))) {
        throw refuse("env -S splits a string into a command line: name the program and its arguments instead");
      }
      if (a.startsWith("-") && !a.equals("-")) {
        i += takesValue.contains(a) ? 2 : 1;
        continue;
      }
      if ("env".equals(wrapper) && a.contains("=")) {
        throw refuse("env NAME=VALUE changes the wrapped program's environment (GIT_*, LD_*, PAGER …): not allowed");
      }
      if (!durationDone) {
        durationDone = true;
        i++;
        continue;
      }
      break;
    }
    if (i >= args.size()) {
      if ("xargs".equals(wrapper)) {
        throw refuse("xargs without a command runs echo with input it reads: name the command");
      }
      return;
    }
    List<String> inner = args.subList(i, args.size());
    allowlisted.accept(inner.get(0));
    check(inner, allowlisted);
  }

  private static void git(List<String> args) {
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      String opt = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
      if (opt.equals("-c") || opt.equals("--config-env") || opt.equals("--exec-path") || opt.equals("--upload-pack")
        || opt.equals("--receive-pack") || opt.equals("-u") || opt.equals("--ext") || opt.equals("--exec")
        || opt.equals("--template") || opt.equals("--separate-git-dir") || opt.equals("--git-dir")
        || opt.equals("--work-tree") || opt.equals("-p") || opt.equals("--paginate") || opt.equals("--output")
        || opt.equals("--open-files-in-pager") || opt.equals("-O") || opt.startsWith("--extcmd")
        || opt.equals("--tool") || opt.equals("-x") || opt.equals("--exec-cmd")) {
        throw refuse("git " + opt + " can run other programs or point git at other files: not allowed through run_command");
      }
      if (a.startsWith("ext::") || a.contains("::")) {
        throw refuse("git remote helpers ('" + a.substring(0, Math.min(8, a.length())) + "…') run programs: not allowed");
      }
    }
    String sub = args.stream().filter(a -> !a.startsWith("-")).findFirst().orElse("");
    if (Set.of("difftool", "mergetool", "filter-branch", "bisect", "rebase", "submodule", "daemon", "instaweb", "web--browse",
      "credential", "config", "archimport", "cvsserver", "shell", "help", "send-email", "am", "apply", "hook").contains(sub)) {
      throw refuse("git " + sub + " can run configured programs: not allowed through run_command");
    }
  }

  private static void tar(List<String> args) {
    for (int i = 0; i < args.size(); i++) {
      String a = args.get(i);
      String opt = a.contains("=") ? a.substring(0, a.indexOf('=')) : a;
      if (Set.of("--checkpoint-action", "--to-command", "--use-compress-program", "--info-script", "--new-volume-script",
        "--rsh-command", "--rmt-command", "-I", "-F").contains(opt)) {
        throw refuse("tar " + opt + " runs another program: not allowed through run_command");
      }
      // short options bundled (-cIf, or the old style "cvIf" as the first word)
      boolean bundle = (a.startsWith("-") && !a.startsWith("--")) || (i == 0 && !a.startsWith("-") && a.matches("[A-Za-z]+"));
      if (bundle && (a.indexOf('I') >= 0 || a.indexOf('F') >= 0)) {
        throw refuse("tar -I / -F (in '" + a + "') run another program: not allowed through run_command");
      }
      if (!a.startsWith("-") && a.contains(":") && !a.startsWith("/")) {
        throw refuse("tar archive '" + a + "' names a remote host (it would run rsh/ssh): not allowed");
      }
    }
  }

  private static void find(List<String> args) {
    for (String a : args) {
      if (Set.of("-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls").contains(a)) {
        throw refuse("find " + a + " runs programs or writes files: not allowed through run_command (use the file tools)");
      }
    }
  }

  private static io.fleetbus.shared.bus.FleetException refuse(String why) {
    return FailureCode.FORBIDDEN.exception(why);
  }
}
