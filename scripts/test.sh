#!/usr/bin/env bash
# Runs every test: unit tests and the multi-JVM integration tests (real Hazelcast cluster, real processes).
set -euo pipefail
cd "$(dirname "$0")/.."
exec mvn -B verify "$@"
