#!/usr/bin/env bash
# Mints a user token with the hub's key and prints it (nothing else), e.g.
#   scripts/token.sh --role admin --sub alice --ttl 8h
#   scripts/token.sh --role approver --sub bob --ttl 1h --conf conf/hub.json
# The hub must have started once (it creates its keys); FLEETBUS_HUB_DATA is honoured.
set -euo pipefail
source "$(dirname "$0")/common.sh"
build_if_needed --quiet
cd "$ROOT"
exec java -cp "$HUB_JAR" io.fleetbus.hub.auth.TokenCli "$@"
