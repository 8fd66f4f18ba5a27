#!/usr/bin/env bash
# Starts one hub in the foreground. Usage: scripts/start-hub.sh [-conf conf/hub.json]
# Environment overrides: see README.md "Configuration".
set -euo pipefail
source "$(dirname "$0")/common.sh"
build_if_needed
cd "$ROOT"
ARGS=("$@")
[[ $# -eq 0 ]] && ARGS=(-conf conf/hub.json)
exec java "${JVM_FLAGS[@]}" "${HUB_JVM_FLAGS[@]}" ${FLEETBUS_JAVA_OPTS:-} -jar "$HUB_JAR" "${ARGS[@]}"
