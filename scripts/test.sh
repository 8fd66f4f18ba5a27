#!/usr/bin/env bash
# Runs the tests (tiers: CONTRIBUTING.md). With no argument, every tier: the fast tier (plain and in-process tests),
# the multi-JVM tier (real Hazelcast cluster, real hub and node processes) and the Jazzer regression runs; that is
# what CI runs. Usage:
#   scripts/test.sh            every test (mvn verify)
#   scripts/test.sh --fast     the fast tier only (mvn test, no multi-JVM, no fuzz, no packaging)
# Any further arguments go to Maven (e.g. scripts/test.sh --fast -pl node-verticles -am -o).
set -euo pipefail
cd "$(dirname "$0")/.."
if [[ "${1:-}" == "--fast" ]]; then
  shift
  exec mvn -B test -Dtiers.fastOnly=true "$@"
fi
exec mvn -B verify "$@"
