#!/usr/bin/env bash
# Starts one hub in the foreground. Usage: scripts/start-hub.sh [-conf conf/hub.json]
# Environment overrides: see docs/operating.md "Configuration".
set -euo pipefail
source "$(dirname "$0")/common.sh"
start_in_foreground hub "$@"
