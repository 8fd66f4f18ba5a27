#!/usr/bin/env bash
# Coverage-guided fuzzing of the input parsers (Jazzer). Without JAZZER_FUZZ=1 the same tests only
# replay their committed corpus (that is what every build does). Usage:
#   JAZZER_FUZZ=1 scripts/fuzz.sh [seconds-per-target, default 60]
# Findings land as crash files beside the corpus (src/test/resources/**/<Test>Inputs/); commit them
# as regression inputs once fixed.
set -euo pipefail
cd "$(dirname "$0")/.."
seconds=${1:-60}
export JAZZER_FUZZ=${JAZZER_FUZZ:-1}
# note: jazzer-junit 0.24 takes the time per target from @FuzzTest(maxDuration) (30 s); jazzer.max_duration is ignored
for target in shared-codecs:ToolArgumentsFuzzTest node-verticles:CommandLineFuzzTest node-verticles:PathScopeFuzzTest \
    hub-verticles:WsFrameFuzzTest hub-verticles:McpMessageFuzzTest hub-verticles:BridgeFrameFuzzTest; do
  module=${target%%:*}
  test=${target##*:}
  echo "== fuzzing $test for ${seconds}s"
  mvn -B -q test -pl "$module" -am -Dsurefire.failIfNoSpecifiedTests=false -Dtest="$test" \
    -Djazzer.max_duration="${seconds}s" -Djazzer.keep_going=0
done
