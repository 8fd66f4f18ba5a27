#!/usr/bin/env bash
# The embedded default: builds if needed, starts a hub and a local node on one loopback cluster
# (SQLite under ./data), and prints where to connect and an admin dev token once the node is online (the API's URL
# also goes to data/hub/api-url).
# FLEETBUS_HTTP_PORT overrides the port (default 8080). Ctrl-C stops both.
set -euo pipefail
source "$(dirname "$0")/common.sh"
build_if_needed
cd "$ROOT"
mkdir -p data/logs
hub_data="${FLEETBUS_HUB_DATA:-data/hub}"
# where to connect, written once hub and node are up (the README's Try it reads it); none from an earlier run
rm -f "$hub_data/api-url"
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

# A free loopback port (bash only: a fresh machine may have no python); nothing answers there right now.
free_port() {
  local p
  for _ in $(seq 1 200); do
    p=$((20000 + RANDOM % 40000))
    (exec 3<>"/dev/tcp/127.0.0.1/$p") 2>/dev/null || { echo "$p"; return 0; }
  done
  echo "fleetbus: found no free port" >&2
  exit 1
}

# The cluster of this checkout only: the hub's own port (kept in data/cluster-port while it stays free) and, by
# default, its fleet's own cluster name (fleetbus-<fleetId>), so two checkouts on one machine or LAN never merge and
# the node finds its hub whatever else listens on 5701+. FLEETBUS_CLUSTER_* set by the caller win.
hub_port=$(cat data/cluster-port 2>/dev/null || true)
if [[ ! "$hub_port" =~ ^[0-9]+$ ]] || (exec 3<>"/dev/tcp/127.0.0.1/$hub_port") 2>/dev/null; then
  hub_port=$(free_port)
  echo "$hub_port" > data/cluster-port
fi
export FLEETBUS_CLUSTER_HOST="${FLEETBUS_CLUSTER_HOST:-127.0.0.1}"
members="${FLEETBUS_CLUSTER_MEMBERS:-127.0.0.1:$hub_port}"

FLEETBUS_CLUSTER_PORT="${FLEETBUS_CLUSTER_PORT:-$hub_port}" FLEETBUS_CLUSTER_MEMBERS="$members" \
  java "${JVM_FLAGS[@]}" "${HUB_JVM_FLAGS[@]}" ${FLEETBUS_JAVA_OPTS:-} -jar "$HUB_JAR" -conf conf/hub.json >>data/logs/hub.log 2>&1 &
pids+=($!)
hub_pid=$!
api_line=$(await_line data/logs/hub.log 'api: http://|hub failed' "$hub_pid")
[[ "$api_line" == *"api: http"* ]] || { cat data/logs/hub.log >&2; exit 1; }
api_url=${api_line##*api: }
ready_line=$(grep -m1 -E 'hub ready \[cluster: ' data/logs/hub.log)
cluster_name=${ready_line##*hub ready \[cluster: }
cluster_name=${cluster_name%%,*}

# the hub wrote a one-time enrollment token for the local node (conf/hub.json enrollment.localNodeId);
# a node that already holds a credential ignores it. The node never reaches the hub's data folder (keys, dev tokens,
# store key): it leaves it out of every tool and every process it starts (FLEETBUS_PRIVATE_PATHS, ':'-separated; the
# hub also marks it with .fleetbus-private, which the node honours wherever it finds it).
FLEETBUS_PRIVATE_PATHS="$(realpath -m "$hub_data")${FLEETBUS_PRIVATE_PATHS:+:$FLEETBUS_PRIVATE_PATHS}" \
  FLEETBUS_ENROLLMENT_TOKEN="$(cat "$hub_data/local-node-enrollment-token" 2>/dev/null || true)" \
  FLEETBUS_CLUSTER_NAME="${FLEETBUS_CLUSTER_NAME:-$cluster_name}" FLEETBUS_CLUSTER_MEMBERS="$members" \
  FLEETBUS_CLUSTER_PORT="$(free_port)" \
  java "${JVM_FLAGS[@]}" "${NODE_JVM_FLAGS[@]}" ${FLEETBUS_JAVA_OPTS:-} -jar "$NODE_JAR" -conf conf/node.json >>data/logs/node.log 2>&1 &
pids+=($!)
if ! (await_line data/logs/hub.log 'node online \[node: ' "$hub_pid" >/dev/null); then
  echo "fleetbus: the local node never came online; the node's last lines (data/logs/node.log):" >&2
  tail -n 30 data/logs/node.log >&2
  exit 1
fi

printf '%s\n' "$api_url" > "$hub_data/api-url"
echo "api: $api_url"
echo "dashboard: $api_url/"
echo "token: $(cat "$hub_data/dev-token")"
echo "approver-token: $(cat "$hub_data/dev-approver-token")"
echo "logs: data/logs/hub.log data/logs/node.log — Ctrl-C stops hub and node"
wait -n "${pids[@]}" || true
echo "a fleetbus process ended; see data/logs/" >&2
