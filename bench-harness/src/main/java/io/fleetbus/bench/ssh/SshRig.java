package io.fleetbus.bench.ssh;

import io.fleetbus.bench.proc.Ports;
import io.fleetbus.testsupport.FleetProcess;
import java.io.IOException;
import java.nio.charset.StandardCharsets;
import java.nio.file.Files;
import java.nio.file.Path;
import java.time.Duration;
import java.util.ArrayList;
import java.util.List;
import java.util.Map;
import java.util.Optional;
import java.util.concurrent.TimeUnit;

/**
 * A throw-away sshd for the ssh comparison: its own host key, client key, config and port, listening on
 * 127.0.0.1 only, all under one work folder. The system's sshd and its config are never touched.
 */
public final class SshRig implements AutoCloseable {
  private static final Path SSHD = Path.of("/usr/sbin/sshd");

  private final Path dir;
  private final FleetProcess sshd;
  private final Path clientConfig;

  private SshRig(Path dir, FleetProcess sshd, Path clientConfig) {
    this.dir = dir;
    this.sshd = sshd;
    this.clientConfig = clientConfig;
  }

  /** Why the ssh rows cannot run here, or empty when they can. */
  public static Optional<String> unavailableReason() {
    if (!Files.isExecutable(SSHD)) {
      return Optional.of("no " + SSHD + " (bench.sh installs openssh-server; the smoke test does not)");
    }
    if (!"root".equals(System.getProperty("user.name")) && !Files.isDirectory(Path.of("/run/sshd"))) {
      return Optional.of("sshd needs /run/sshd, which only root can make");
    }
    if (which("ssh") == null || which("ssh-keygen") == null) {
      return Optional.of("no ssh client on the PATH");
    }
    return Optional.empty();
  }

  public static SshRig start(Path dir, Duration timeout) throws IOException, InterruptedException {
    Files.createDirectories(dir);
    for (String f : List.of("host_key", "host_key.pub", "client_key", "client_key.pub", "known_hosts")) {
      Files.deleteIfExists(dir.resolve(f));
    }
    keygen(dir.resolve("host_key"), "fleetbus-bench-host");
    keygen(dir.resolve("client_key"), "fleetbus-bench-client");
    Files.copy(dir.resolve("client_key.pub"), dir.resolve("authorized_keys"),
      java.nio.file.StandardCopyOption.REPLACE_EXISTING);
    int port = Ports.free();
    String user = System.getProperty("user.name");
    Path serverConfig = write(dir.resolve("sshd_config"), String.join("\n",
      "Port " + port,
      "ListenAddress 127.0.0.1",
      "HostKey " + dir.resolve("host_key").toAbsolutePath(),
      "PidFile " + dir.resolve("sshd.pid").toAbsolutePath(),
      "AuthorizedKeysFile " + dir.resolve("authorized_keys").toAbsolutePath(),
      "AllowUsers " + user,
      "PubkeyAuthentication yes",
      "PasswordAuthentication no",
      "KbdInteractiveAuthentication no",
      "PermitRootLogin prohibit-password",
      "UsePAM no",
      "StrictModes no",
      "PrintMotd no",
      "PrintLastLog no",
      // Debian's bash sources ~/.bashrc for ssh commands unless SHLVL says it is nested; a heavy rc file
      // (pyenv init costs ~0.3 s here) would time the account's shell setup instead of ssh
      "SetEnv SHLVL=1",
      "MaxStartups 100:30:200",
      ""));
    Path clientConfig = write(dir.resolve("ssh_config"), String.join("\n",
      "Host localhost",
      "  HostName 127.0.0.1",
      "  Port " + port,
      "  User " + user,
      "  IdentityFile " + dir.resolve("client_key").toAbsolutePath(),
      "  IdentitiesOnly yes",
      "  BatchMode yes",
      "  StrictHostKeyChecking no",
      "  UserKnownHostsFile " + dir.resolve("known_hosts").toAbsolutePath(),
      "  ControlPath " + dir.resolve("cm-%C").toAbsolutePath(),
      "  LogLevel ERROR",
      ""));
    // sshd refuses to start without its privilege-separation folder (normally made by the service unit)
    Files.createDirectories(Path.of("/run/sshd"));
    FleetProcess sshd = FleetProcess.start("sshd",
      List.of(SSHD.toString(), "-D", "-e", "-f", serverConfig.toAbsolutePath().toString()), Map.of(), dir,
      dir.resolve("sshd.log"));
    try {
      sshd.awaitLine("Server listening on 127\\.0\\.0\\.1 port " + port, timeout);
    } catch (RuntimeException | AssertionError e) {
      sshd.stop();
      throw e;
    }
    return new SshRig(dir, sshd, clientConfig);
  }

  /** {@code ssh -o ControlMaster=auto -o ControlPersist=60 localhost CMD…}: one connection reused by every call. */
  public List<String> multiplexed(String... command) {
    return ssh(List.of("-o", "ControlMaster=auto", "-o", "ControlPersist=60"), command);
  }

  /** {@code ssh localhost CMD…}: a new connection (key exchange, auth) per call. */
  public List<String> plain(String... command) {
    return ssh(List.of("-o", "ControlMaster=no", "-o", "ControlPath=none"), command);
  }

  private List<String> ssh(List<String> options, String... command) {
    List<String> argv = new ArrayList<>(List.of("ssh", "-F", clientConfig.toAbsolutePath().toString()));
    argv.addAll(options);
    argv.add("localhost");
    argv.addAll(List.of(command));
    return argv;
  }

  /** Ends the ControlPersist master (it outlives its ssh otherwise) and stops this sshd. */
  @Override
  public void close() {
    try {
      run(ssh(List.of("-O", "exit")));
    } catch (IOException | RuntimeException e) {
      // no master was running
    } catch (InterruptedException e) {
      Thread.currentThread().interrupt();
    }
    sshd.stop();
  }

  public Path dir() {
    return dir;
  }

  private static void keygen(Path file, String comment) throws IOException, InterruptedException {
    run(List.of("ssh-keygen", "-q", "-t", "ed25519", "-N", "", "-C", comment, "-f", file.toString()));
  }

  private static Path write(Path file, String content) throws IOException {
    Files.writeString(file, content, StandardCharsets.UTF_8);
    return file;
  }

  private static void run(List<String> argv) throws IOException, InterruptedException {
    Process p = new ProcessBuilder(argv).redirectErrorStream(true).start();
    String out = new String(p.getInputStream().readAllBytes(), StandardCharsets.UTF_8);
    if (!p.waitFor(30, TimeUnit.SECONDS) || p.exitValue() != 0) {
      throw new IllegalStateException(String.join(" ", argv) + " failed: " + out.strip());
    }
  }

  private static Path which(String program) {
    for (String d : System.getenv().getOrDefault("PATH", "/usr/bin:/bin").split(":")) {
      Path p = Path.of(d, program);
      if (Files.isExecutable(p)) {
        return p;
      }
    }
    return null;
  }
}
