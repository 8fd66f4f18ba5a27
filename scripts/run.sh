#!/usr/bin/env bash
# The embedded default: builds if needed, starts a hub and a local node on one loopback cluster
# (SQLite under ./data), and prints where to connect and an admin dev token once the node is online.
# FLEETBUS_HTTP_PORT overrides the port (default 8080). Ctrl-C stops both.
set -euo pipefail
source "$(dirname "$0")/common.sh"
build_if_needed
cd "$ROOT"
mkdir -p data/logs
: > data/logs/hub.log
: > data/logs/node.log

pids=()
cleanup() {
  trap - INT TERM EXIT
  for pid in "${pids[@]}"; do kill -TERM "$pid" 2>/dev/null || true; done
  for pid in "${pids[@]}"; do wait "$pid" 2>/dev/null || true; done
  echo "fleetbus stopped" >&2
}
trap cleanup INT TERM EXIT

# Waits for a line matching $2 in log $1 while process $3 lives (reads the log as it grows; no polling sleep).
await_line() {
  local line
  line=$(timeout "${4:-120}" grep -m1 -E "$2" <(tail --pid="$3" -n +1 -F "$1" 2>/dev/null)) || {
    echo "fleetbus: gave up waiting for '$2' in $1; its last lines:" >&2
    tail -n 30 "$1" >&2
    exit 1
  }
  printf '%s\n' "$line"
}

java "${JVM_FLAGS[@]}" "${HUB_JVM_FLAGS[@]}" ${FLEETBUS_JAVA_OPTS:-} -jar "$HUB_JAR" -conf conf/hub.json >>data/logs/hub.log 2>&1 &
pids+=($!)
hub_pid=$!
api_line=$(await_line data/logs/hub.log 'api: http://|hub failed' "$hub_pid")
[[ "$api_line" == *"api: http"* ]] || { cat data/logs/hub.log >&2; exit 1; }
api_url=${api_line##*api: }

# the hub wrote a one-time enrollment token for the local node (conf/hub.json enrollment.localNodeId);
# a node that already holds a credential ignores it
FLEETBUS_ENROLLMENT_TOKEN="$(cat "${FLEETBUS_HUB_DATA:-data/hub}/local-node-enrollment-token" 2>/dev/null || true)" \
  java "${JVM_FLAGS[@]}" "${NODE_JVM_FLAGS[@]}" ${FLEETBUS_JAVA_OPTS:-} -jar "$NODE_JAR" -conf conf/node.json >>data/logs/node.log 2>&1 &
pids+=($!)
await_line data/logs/hub.log 'node online \[node: ' "$hub_pid" >/dev/null

echo "api: $api_url"
echo "dashboard: $api_url/"
echo "token: $(cat "${FLEETBUS_HUB_DATA:-data/hub}/dev-token")"
echo "approver-token: $(cat "${FLEETBUS_HUB_DATA:-data/hub}/dev-approver-token")"
echo "logs: data/logs/hub.log data/logs/node.log — Ctrl-C stops hub and node"
wait -n "${pids[@]}" || true
echo "a fleetbus process ended; see data/logs/" >&2
