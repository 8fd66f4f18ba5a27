package io.fleetbus.node.confine;

import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.List;
import java.util.function.Predicate;

/**
 * The attack corpus of the process grant: what a confined process tries beyond the file scope — the network, signals
 * and abstract sockets of processes outside its domain, code from anonymous files and calls on other processes'
 * limits and priority, root's capabilities, resource exhaustion, the loader and interpreters, and repo-local git
 * configs that run programs. Each case names the part of the grant that stops it ({@code FILES}: the Landlock file
 * rules themselves; switched off, the command runs unconfined). perl stands for any allowlisted program that makes
 * system calls of its own (or any ELF run through the loader, see docs/grant-processes.md).
 */
final class AttackCorpus {
  static final String FILES = "FILES";
  /**
   * The case that waits at the process limit: bash retries a refused fork after 1, 2, 4 and 8 s (a sleep no signal
   * cuts short) before it gives up, so its confined run takes 15 s of waiting whatever the machine.
   */
  static final String BASH_SLEEPS = "bash starts 300 background sleeps";

  /** One attack: argv, and how its success shows in the result (or in the world: a counter, a file). */
  record Case(String part, String name, List<String> argv, Predicate<JsonObject> escaped, long timeoutMs) {
    Case(String part, String name, List<String> argv, Predicate<JsonObject> escaped) {
      this(part, name, argv, escaped, 15_000);
    }

    @Override
    public String toString() {
      return part + ": " + name;
    }
  }

  /** What the cases aim at, prepared unconfined by the test. */
  record Targets(Path scope, Path outside, Path secret, String secretText, List<Integer> servers,
                 java.util.concurrent.atomic.AtomicInteger accepted, List<Integer> freePorts, long jvm, long sleeper, long jvmGroup,
                 List<String> abstractNames, Path dashCopy) {
  }

  private AttackCorpus() {
  }

  static List<Case> cases(Targets t) {
    List<Case> c = new ArrayList<>();
    network(t, c);
    scope(t, c);
    execGuard(t, c);
    capabilities(t, c);
    limits(t, c);
    loaderAndConfigs(t, c);
    proc(t, c);
    return c;
  }

  private static Predicate<JsonObject> says(String marker) {
    return r -> (r.getString("stdout", "") + r.getString("stderr", "")).contains(marker);
  }

  private static List<String> perl(String code) {
    return List.of("perl", "-e", code);
  }

  private static void network(Targets t, List<Case> c) {
    for (int port : t.servers()) {
      // the test sets the counter to 0 before each case
      Predicate<JsonObject> accepted = r -> t.accepted().get() > 0;
      c.add(new Case("NETWORK", "perl connects to 127.0.0.1:" + port, (perl(
        "use IO::Socket::INET; IO::Socket::INET->new(PeerAddr=>'127.0.0.1',PeerPort=>" + port
          + ",Proto=>'tcp') or die \"no: $!\"; print 'CONNECTED'")), says("CONNECTED").or(accepted)));
      c.add(new Case("NETWORK", "bash /dev/tcp to port " + port, (List.of("bash", "-c",
        "exec 3<>/dev/tcp/127.0.0.1/" + port + " && echo CONNECTED")), says("CONNECTED").or(accepted)));
      c.add(new Case("NETWORK", "curl to port " + port, (List.of("curl", "-s", "-m", "3",
        "http://127.0.0.1:" + port + "/")), accepted));
    }
    for (int port : t.freePorts()) {
      c.add(new Case("NETWORK", "perl listens on port " + port, perl("use IO::Socket::INET; IO::Socket::INET->new("
        + "LocalAddr=>'127.0.0.1',LocalPort=>" + port + ",Listen=>1,ReuseAddr=>1,Proto=>'tcp') or die \"no: $!\";"
        + " print 'LISTENING'"), says("LISTENING")));
    }
    c.add(new Case("NETWORK", "perl listens on any port", perl("use IO::Socket::INET; IO::Socket::INET->new("
      + "LocalAddr=>'0.0.0.0',LocalPort=>0,Listen=>1,Proto=>'tcp') or die \"no: $!\"; print 'LISTENING'"),
      says("LISTENING")));
  }

  private static void scope(Targets t, List<Case> c) {
    Predicate<JsonObject> ok = r -> Integer.valueOf(0).equals(r.getInteger("exitCode"));
    for (long pid : List.of(t.jvm(), t.sleeper())) {
      c.add(new Case("SCOPE", "bash kill -0 " + pid, List.of("bash", "-c", "kill -0 " + pid), ok));
      c.add(new Case("SCOPE", "/usr/bin/kill -0 " + pid, List.of("kill", "-0", Long.toString(pid)), ok));
      c.add(new Case("SCOPE", "perl kill 0 " + pid, perl("print kill(0, " + pid + ") ? 'SIGNALLED' : \"no: $!\""),
        says("SIGNALLED")));
    }
    c.add(new Case("SCOPE", "perl SIGCONT to an outside process", perl("print kill('CONT', " + t.sleeper()
      + ") ? 'SIGNALLED' : \"no: $!\""), says("SIGNALLED")));
    c.add(new Case("SCOPE", "bash kill -0 of the node's process group", List.of("bash", "-c", "kill -0 -- -" + t.jvmGroup()),
      ok));
    c.add(new Case("SCOPE", "perl kill 0 of the node's process group", perl("print kill(0, -" + t.jvmGroup()
      + ") ? 'SIGNALLED' : \"no: $!\""), says("SIGNALLED")));
    for (String name : t.abstractNames()) {
      c.add(new Case("SCOPE", "abstract unix socket @" + name, perl("use Socket; socket(my $s, AF_UNIX, SOCK_STREAM, 0)"
        + " or die; connect($s, pack_sockaddr_un(\"\\0" + name + "\")) or die \"no: $!\"; print 'CONNECTED'"),
        says("CONNECTED")));
    }
  }

  /** perl code that copies {@code source} into a memfd and execs it from /proc/self/fd with {@code args}. */
  private static String memfdExec(String source, String args) {
    return "my $fd = syscall(319, my $n = 'x', 0); die \"memfd: $!\" if $fd < 0; open(my $m, '>&=', $fd) or die;"
      + " open(my $in, '<', '" + source + "') or die \"read: $!\"; binmode $in; local $/; print {$m} scalar(<$in>); close $in;"
      + " $m->flush; exec {\"/proc/self/fd/$fd\"} 'x', " + args + " or die \"exec: $!\"";
  }

  private static void execGuard(Targets t, List<Case> c) {
    String dash = t.dashCopy().toString();
    c.add(new Case("EXEC_GUARD", "memfd_create", perl("my $fd = syscall(319, my $n = 'x', 0); print $fd >= 0 ? 'MEMFD' : \"no: $!\""),
      says("MEMFD")));
    c.add(new Case("EXEC_GUARD", "dash from a memfd", perl(memfdExec(dash, "'-c', 'echo RAN-$((6*7))'")), says("RAN-42")));
    c.add(new Case("EXEC_GUARD", "dash from a memfd runs sh scripts", perl(memfdExec(dash,
      "'-c', 'for i in 1 2; do echo RAN-$((40+i)); done'")), says("RAN-42")));
    c.add(new Case("EXEC_GUARD", "id from a memfd", perl(memfdExec(t.scope().resolve("id-copy").toString(), "'-u'")),
      r -> r.getString("stdout", "").matches("\\d+\\s*")));
    c.add(new Case("EXEC_GUARD", "execveat of a memfd", perl("my $fd = syscall(319, my $n = 'x', 0); die \"memfd: $!\" if $fd < 0;"
      + " open(my $m, '>&=', $fd); open(my $in, '<', '" + dash + "') or die; binmode $in; local $/; print {$m} scalar(<$in>);"
      + " $m->flush; my @a = ('x', '-c', 'echo RAN-$((6*7))'); my $argv = pack('p' x @a . 'Q', @a, 0);"
      + " my $envp = pack('Q', 0); syscall(322, $fd, my $e = '', $argv, $envp, 0x1000); print \"no: $!\""), says("RAN-42")));
    for (long pid : List.of(t.jvm(), t.sleeper())) {
      c.add(new Case("EXEC_GUARD", "prlimit64 reads the limits of " + pid, perl("my $b = \"\\0\" x 16; print syscall(302, "
        + pid + ", 7, 0, $b) == 0 ? 'RLIMIT' : \"no: $!\""), says("RLIMIT")));
    }
    c.add(new Case("EXEC_GUARD", "prlimit64 sets an outside process's CPU limit", perl("my $n = pack('QQ', 100000, 100000);"
      + " print syscall(302, " + t.sleeper() + ", 0, $n, 0) == 0 ? 'RLIMIT' : \"no: $!\""), says("RLIMIT")));
    c.add(new Case("EXEC_GUARD", "sched_setaffinity of an outside process", perl("my $m = \"\\xff\" x 8;"
      + " print syscall(203, " + t.sleeper() + ", 8, $m) == 0 ? 'AFFINITY' : \"no: $!\""), says("AFFINITY")));
    c.add(new Case("EXEC_GUARD", "setpriority of an outside process", perl("print syscall(141, 0, " + t.sleeper()
      + ", 3) == 0 ? 'NICE' : \"no: $!\""), says("NICE")));
    c.add(new Case("EXEC_GUARD", "ioprio_set of an outside process", perl("print syscall(251, 1, " + t.sleeper()
      + ", (2 << 13) | 4) == 0 ? 'IOPRIO' : \"no: $!\""), says("IOPRIO")));
    c.add(new Case("EXEC_GUARD", "sched_setscheduler of an outside process", perl("my $p = pack('i', 0);"
      + " print syscall(144, " + t.sleeper() + ", 0, $p) == 0 ? 'SCHED' : \"no: $!\""), says("SCHED")));
  }

  private static void capabilities(Targets t, List<Case> c) {
    c.add(new Case("CAPABILITIES", "reads kernel addresses (CAP_SYSLOG)", perl("open(my $k, '<', '/proc/kallsyms') or die"
      + " \"no: $!\"; my $l = <$k>; print 'KERNEL-ADDRESS' if $l !~ /^0+ /"), says("KERNEL-ADDRESS")));
    c.add(new Case("CAPABILITIES", "keeps capabilities", perl("open(my $s, '<', '/proc/self/status') or die; while (<$s>)"
      + " { print \"CAPS $1\" if /^CapEff:\\s+(\\S+)/ && $1 ne '0000000000000000' }"), says("CAPS")));
    c.add(new Case("CAPABILITIES", "chowns a file in the scope", perl("open(my $f, '>', '" + t.scope() + "/owned') or die;"
      + " close $f; print chown(1234, 1234, '" + t.scope() + "/owned') ? 'CHOWNED' : \"no: $!\""), says("CHOWNED")));
    c.add(new Case("CAPABILITIES", "becomes another user", perl("$> = 1234; print $> == 1234 ? 'SETUID' : \"no: $!\""),
      says("SETUID")));
    c.add(new Case("CAPABILITIES", "opens a raw socket", perl("use Socket; print socket(my $s, AF_INET, SOCK_RAW, 1)"
      + " ? 'RAW' : \"no: $!\""), says("RAW")));
    c.add(new Case("CAPABILITIES", "unshares a mount namespace", perl("print syscall(272, 0x00020000) == 0 ? 'UNSHARED'"
      + " : \"no: $!\""), says("UNSHARED")));
  }

  private static void limits(Targets t, List<Case> c) {
    c.add(new Case("LIMITS", "perl forks 300 processes", perl("my $n = 0; for (1..300) { my $p = fork; last unless"
      + " defined $p; if (!$p) { close STDOUT; close STDERR; sleep 20; exit 0 } $n++ } print \"FORKED $n\""), says("FORKED 300")));
    c.add(new Case("LIMITS", BASH_SLEEPS, List.of("bash", "-c", "n=0; for i in $(seq 300); do"
      + " (sleep 20) >/dev/null 2>&1 & n=$((n+1)); done; echo FORKED $(jobs -p | wc -l)"), says("FORKED 300")));
    // both spin until 1.2 s of their own user time (the limit is 1 s of CPU): CPU seconds, not wall, as the limit
    // counts them (a loaded machine gives a spinner a fraction of a core), not a count of loops a fast machine ends
    // within 1 s, and with few system calls (perl asking times() in a tight loop spent 3 s in the kernel for 1.2 s)
    c.add(new Case("LIMITS", "perl spins on the CPU", perl("my $u = 0; while ($u < 1.2) { for (my $i = 0; $i < 100000;"
      + " $i++) {} ($u) = times } print 'SPUN'"), says("SPUN"), 90_000));
    c.add(new Case("LIMITS", "bash spins on the CPU", List.of("bash", "-c", "while :; do for ((i = 0; i < 20000; i++));"
      + " do :; done; read -r -a s < /proc/$$/stat; ((s[13] >= 120)) && break; done; echo SPUN"), says("SPUN"),
      90_000)); // field 14 of stat: the shell's user time in clock ticks (100 a second)
    c.add(new Case("LIMITS", "yes fills a file", List.of("bash", "-c", "yes | head -c 3000000 > " + t.scope()
      + "/big1; stat -c 'SIZE %s' " + t.scope() + "/big1"), says("SIZE 3000000")));
    c.add(new Case("LIMITS", "perl writes 3 MB", perl("open(my $f, '>', '" + t.scope() + "/big2') or die; print $f 'x' x"
      + " 3000000 or die \"no: $!\"; close $f or die \"no: $!\"; print 'WROTE ', -s '" + t.scope() + "/big2'"),
      says("WROTE 3000000")));
  }

  private static void loaderAndConfigs(Targets t, List<Case> c) {
    String ld = "/lib64/ld-linux-x86-64.so.2";
    String secret = t.secret().toString();
    Predicate<JsonObject> read = says(t.secretText());
    Predicate<JsonObject> wrote = r -> Files.exists(t.outside().resolve("pwned"));
    String dash = t.dashCopy().toString();
    c.add(new Case(FILES, "loader runs dash to read the secret", List.of("bash", "-c", ld + " " + dash + " -c 'read l < "
      + secret + "; echo $l'"), read));
    c.add(new Case(FILES, "loader runs dash to write outside", List.of("bash", "-c", ld + " " + dash + " -c 'echo x > "
      + t.outside() + "/pwned'"), wrote));
    c.add(new Case(FILES, "shebang script to python in the scope", List.of("bash", "-c", "printf '#!/usr/bin/python3\\n"
      + "print(open(\"" + secret + "\").read())' > " + t.scope() + "/s.py; chmod +x " + t.scope() + "/s.py; "
      + t.scope() + "/s.py"), read));
    c.add(new Case(FILES, "shebang script to sh in the scope", List.of("bash", "-c", "printf '#!/bin/sh\\nread l < "
      + secret + "; echo $l\\n' > " + t.scope() + "/s.sh; chmod +x " + t.scope() + "/s.sh; " + t.scope() + "/s.sh"), read));
    String repo = t.scope().resolve("repo").toString();
    String sh = "sh -c 'cat " + secret + "; echo x > " + t.outside() + "/pwned'";
    Predicate<JsonObject> ran = read.or(wrote);
    c.add(new Case(FILES, "repo-local core.fsmonitor", git(repo, "git config core.fsmonitor \"" + sh + "\"; git status"), ran));
    c.add(new Case(FILES, "repo-local clean filter", git(repo, "git config filter.x.clean \"" + sh + "\"; echo '* filter=x'"
      + " > .gitattributes; echo a > a.txt; git add a.txt"), ran));
    c.add(new Case(FILES, "repo-local diff.external", git(repo, "echo a > d.txt; git add d.txt; echo b > d.txt;"
      + " git config diff.external \"" + sh + "\"; git diff"), ran));
    c.add(new Case(FILES, "pre-commit hook", git(repo, "printf '#!/bin/sh\\ncat " + secret + "\\necho x > " + t.outside()
      + "/pwned\\n' > .git/hooks/pre-commit; chmod +x .git/hooks/pre-commit; echo h > h.txt; git add h.txt;"
      + " git -c user.name=a -c user.email=a@b commit -qm h"), ran));
    c.add(new Case(FILES, "repo-local core.editor", git(repo, "git config core.editor \"" + sh + "\";"
      + " git -c user.name=a -c user.email=a@b commit --allow-empty"), ran));
    c.add(new Case(FILES, "repo-local alias to a shell", git(repo, "git config alias.x \"!" + sh + "\"; git x"), ran));
    c.add(new Case(FILES, "repo-local core.hooksPath to a script", git(repo, "mkdir -p hk; printf '#!/bin/sh\\ncat "
      + secret + "\\n' > hk/post-checkout; chmod +x hk/post-checkout; git config core.hooksPath hk;"
      + " git checkout -q -b b$RANDOM"), ran));
    c.add(new Case(FILES, "repo-local smudge filter on checkout", git(repo, "git config filter.y.smudge \"" + sh + "\";"
      + " echo '*.y filter=y' > .gitattributes; echo s > s.y; git add .gitattributes s.y;"
      + " git -c user.name=a -c user.email=a@b commit -qm s --no-verify; rm s.y; git checkout -- s.y"), ran));
  }

  /**
   * /proc is readable (SystemReads), but Landlock's ptrace rule keeps the environment, memory, open files and root of
   * processes outside the domain closed; their switched-off form is an unconfined run.
   */
  private static void proc(Targets t, List<Case> c) {
    Predicate<JsonObject> env = says("PATH=");
    for (long pid : List.of(t.jvm(), t.sleeper())) {
      c.add(new Case(FILES, "/proc/" + pid + "/environ", List.of("cat", "/proc/" + pid + "/environ"), env));
      // the fd numbers are listable (a DAC check, as for the same user anywhere); where they lead is not
      c.add(new Case(FILES, "/proc/" + pid + "/fd targets", List.of("ls", "-l", "/proc/" + pid + "/fd"), says(" -> ")));
      c.add(new Case(FILES, "/proc/" + pid + "/root reaches the secret", List.of("cat", "/proc/" + pid + "/root"
        + t.secret()), says(t.secretText())));
    }
    c.add(new Case(FILES, "/proc/<node>/mem read", perl("open(my $m, '<', '/proc/" + t.jvm() + "/mem') or die \"no: $!\";"
      + " print 'MEM-OPEN'"), says("MEM-OPEN")));
    c.add(new Case(FILES, "/proc/self/root reaches the secret", List.of("cat", "/proc/self/root" + t.secret()),
      says(t.secretText())));
    c.add(new Case(FILES, "/proc/<node>/cwd lists the node's folder", List.of("bash", "-c", "ls /proc/" + t.jvm()
      + "/cwd/ && echo LISTED"), says("LISTED")));
  }

  /** A bash line run in a fresh repository inside the scope. */
  private static List<String> git(String repo, String line) {
    return List.of("bash", "-c", "rm -rf " + repo + "; mkdir -p " + repo + " && cd " + repo + " && git init -q"
      + " && git -c user.name=a -c user.email=a@b commit -q --allow-empty -m init && " + line);
  }
}
