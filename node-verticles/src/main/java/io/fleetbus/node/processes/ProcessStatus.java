package io.fleetbus.node.processes;

/** What a managed process is doing now, as get_process_list reports it. */
public enum ProcessStatus {
  RUNNING("running"),
  STOPPED("stopped"),
  /** Exited on its own; a relaunch may be on its way. */
  CRASHED("crashed"),
  /** Crashed more often than its relaunch budget allows: left alone until someone starts it. */
  FAILED("failed"),
  /** Scheduled, and outside every time range right now. */
  SCHEDULED_OFF("scheduled-off");

  public final String json;

  ProcessStatus(String json) {
    this.json = json;
  }

  public static ProcessStatus parse(String text) {
    for (ProcessStatus s : values()) {
      if (s.json.equals(text)) {
        return s;
      }
    }
    return STOPPED;
  }
}
