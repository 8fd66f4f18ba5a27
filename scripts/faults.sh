#!/usr/bin/env bash
# The fault suite: real hub and node JVMs killed, hung and restarted (hub-verticles/src/test/java/io/fleetbus/it).
# Prints the table of scenario / expected / observed that README "Reliability" shows. --short runs the quick subset.
set -euo pipefail
cd "$(dirname "$0")/.."
tests='NodeAndHubFailureTest,HungNodeTest,KillNodesUnderLoadTest,CancelCallTest,NodeLifecycleTest,HubRestartFromDiskTest'
[[ "${1:-}" == "--short" ]] && tests='NodeAndHubFailureTest,KillNodesUnderLoadTest'
report="$PWD/hub-verticles/target/fault-report.jsonl"
rm -f "$report"
mvn -B -q test -pl hub-verticles -am -Dsurefire.failIfNoSpecifiedTests=false -Dtest="$tests" \
  || { echo "fault suite FAILED (see hub-verticles/target/surefire-reports)"; exit 1; }
echo
echo "| scenario | expected | observed |"
echo "|---|---|---|"
python3 - "$report" <<'PY'
import json, sys
for line in open(sys.argv[1]):
    r = json.loads(line)
    print(f"| {r['scenario']} | {r['expected']} | {r['observed']} |")
PY
