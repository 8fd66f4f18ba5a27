#!/usr/bin/env bash
# Starts one node in the foreground. Usage: scripts/start-node.sh [-conf conf/node.json]
# Environment overrides: see README.md "Configuration".
set -euo pipefail
source "$(dirname "$0")/common.sh"
build_if_needed
cd "$ROOT"
ARGS=("$@")
[[ $# -eq 0 ]] && ARGS=(-conf conf/node.json)
exec java "${JVM_FLAGS[@]}" "${NODE_JVM_FLAGS[@]}" ${FLEETBUS_JAVA_OPTS:-} -jar "$NODE_JAR" "${ARGS[@]}"
