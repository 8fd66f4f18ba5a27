package io.fleetbus.node.tools.services;

import io.fleetbus.node.tools.command.HostCommands;
import io.fleetbus.shared.bus.FailureCode;
import io.vertx.core.json.JsonObject;
import java.nio.file.Files;
import java.nio.file.Path;
import java.util.ArrayList;
import java.util.LinkedHashMap;
import java.util.List;
import java.util.Map;

/** systemctl, when systemd runs this machine: the availability check and the {@code show} parser. */
public final class Systemd {
  static final String PROPERTIES = "Id,Description,LoadState,ActiveState,SubState,UnitFileState,MainPID,"
    + "ActiveEnterTimestamp,ExecMainStartTimestamp,FragmentPath,Result,NRestarts,Requires,After,WantedBy";
  private static final Path BOOTED_MARKER = Path.of("/run/systemd/system");

  private final HostCommands host;
  private final Path bootedMarker;

  public Systemd(HostCommands host) {
    this(host, BOOTED_MARKER);
  }

  Systemd(HostCommands host, Path bootedMarker) {
    this.host = host;
    this.bootedMarker = bootedMarker;
  }

  /** systemctl's path, or 503 "not available on this node: …". */
  Path systemctl(String tool) {
    Path p = host.require("systemctl", tool);
    if (!Files.isDirectory(bootedMarker)) {
      throw FailureCode.NO_ELIGIBLE_NODE.exception("not available on this node: systemd is not running here ("
        + bootedMarker + " is missing, so PID 1 is some other init)");
    }
    return p;
  }

  /** {@code systemctl show} of one unit as a status object; 404 when systemd does not know it. */
  JsonObject show(String tool, String unit) throws Exception {
    List<String> argv = List.of(systemctl(tool).toString(), "show", "--no-pager", "--property=" + PROPERTIES, "--", unit);
    JsonObject r = host.run(argv, 15_000, 256 * 1024);
    if (!Integer.valueOf(0).equals(r.getInteger("exitCode"))) {
      throw FailureCode.TOOL_FAILED.exception("systemctl show failed: " + r.getString("stderr", "").strip());
    }
    JsonObject status = status(parse(r.getString("stdout")));
    if ("not-found".equals(status.getString("loadState"))) {
      throw FailureCode.NOT_FOUND.exception("no service '" + unit + "' on this node");
    }
    return status;
  }

  /** Runs {@code systemctl <verb> -- <unit>}; a non-zero exit is a 500 with systemctl's words. */
  void act(String tool, String verb, String unit) throws Exception {
    List<String> argv = List.of(systemctl(tool).toString(), verb, "--no-ask-password", "--no-pager", "--", unit);
    JsonObject r = host.run(argv, 90_000, 64 * 1024);
    if (!Integer.valueOf(0).equals(r.getInteger("exitCode"))) {
      throw FailureCode.TOOL_FAILED.exception("systemctl " + verb + " " + unit + " failed (exit " + r.getInteger("exitCode")
        + "): " + r.getString("stderr", "").strip());
    }
  }

  /** KEY=VALUE lines of {@code systemctl show}. */
  public static Map<String, String> parse(String output) {
    Map<String, String> props = new LinkedHashMap<>();
    for (String line : output.split("\n")) {
      int eq = line.indexOf('=');
      if (eq > 0) {
        props.put(line.substring(0, eq), line.substring(eq + 1).strip());
      }
    }
    return props;
  }

  /** The properties as fleetbus reports a service. */
  public static JsonObject status(Map<String, String> p) {
    String pid = p.getOrDefault("MainPID", "0");
    return new JsonObject()
      .put("name", p.get("Id"))
      .put("description", p.get("Description"))
      .put("loadState", p.get("LoadState"))
      .put("status", p.get("ActiveState"))
      .put("subState", p.get("SubState"))
      .put("running", "active".equals(p.get("ActiveState")) && "running".equals(p.get("SubState")))
      .put("start_type", startType(p.get("UnitFileState")))
      .put("unitFileState", p.get("UnitFileState"))
      .put("mainPid", "0".equals(pid) || pid.isEmpty() ? null : Long.valueOf(pid))
      .put("since", blankToNull(p.getOrDefault("ActiveEnterTimestamp", p.get("ExecMainStartTimestamp"))))
      .put("unitFile", blankToNull(p.get("FragmentPath")))
      .put("result", p.get("Result"))
      .put("restarts", p.get("NRestarts") == null ? null : Integer.valueOf(p.get("NRestarts")))
      .put("requires", words(p.get("Requires")))
      .put("after", words(p.get("After")))
      .put("wantedBy", words(p.get("WantedBy")));
  }

  /** automatic: starts at boot; manual: only when asked or pulled in; disabled; masked: cannot start at all. */
  static String startType(String unitFileState) {
    if (unitFileState == null || unitFileState.isEmpty()) {
      return "unknown";
    }
    return switch (unitFileState) {
      case "enabled", "enabled-runtime", "alias", "linked", "linked-runtime" -> "automatic";
      case "static", "indirect", "generated", "transient" -> "manual";
      case "disabled" -> "disabled";
      case "masked", "masked-runtime" -> "masked";
      default -> unitFileState;
    };
  }

  private static List<String> words(String v) {
    return v == null || v.isBlank() ? List.of() : new ArrayList<>(List.of(v.trim().split("\\s+")));
  }

  private static String blankToNull(String v) {
    return v == null || v.isBlank() ? null : v;
  }
}
