#!/usr/bin/env bash
# Starts one node in the foreground. Usage: scripts/start-node.sh [-conf conf/node.json]
# Environment overrides: see docs/operating.md "Configuration".
set -euo pipefail
source "$(dirname "$0")/common.sh"
start_in_foreground node "$@"
