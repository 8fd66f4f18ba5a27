#!/usr/bin/env bash
# The benchmark (issue 3): the tool-call path against the raw event-bus floor and against ssh, heartbeat
# scale, fan-out, idle RSS. Prints a table, writes bench/results.json; everything it starts runs on
# loopback under bench/work/ (logs in bench/work/logs) and is stopped at the end.
#   scripts/bench.sh           the full benchmark (about 19-20 minutes on 2 cores, quiet; each phase's time in results.json phaseSeconds)
#   scripts/bench.sh --smoke   N = 10 nodes, a few hundred requests: proves the harness works (a few minutes);
#                              writes bench/work/results-smoke.json instead
#   scripts/bench.sh --profile also records a JFR profile of every JVM it starts (bench/work/jfr/*.jfr)
#   scripts/bench.sh --phases floor,scale   only those phases (writes bench/work/results-partial.json); two phases
#                              run only when named: callpath (hub CPU per call) and edgecall (edge vs cluster call, stages)
#   scripts/bench.sh --edge-nodes 10000     the edge-scale row's simulated edge nodes (default 1,000)
set -euo pipefail
source "$(dirname "$0")/common.sh"
BENCH_JAR="$ROOT/bench-harness/target/bench-harness-0.1.0-SNAPSHOT-fat.jar"

mode=()
while (($#)); do
  case "$1" in
    --smoke|--profile) mode+=("$1") ;;
    --phases) [[ $# -ge 2 ]] || { echo "--phases needs a list, e.g. floor,scale" >&2; exit 2; }
      mode+=("$1" "$2"); shift ;;
    --edge-nodes) [[ $# -ge 2 && $2 =~ ^[0-9]+$ ]] || { echo "--edge-nodes needs a count, e.g. 10000" >&2; exit 2; }
      mode+=("$1" "$2"); shift ;;
    *) echo "usage: scripts/bench.sh [--smoke] [--profile] [--phases floor,fleet,audit,ssh,scale,edge-scale,membership,callpath,edgecall] [--edge-nodes N]" >&2
      exit 2 ;;
  esac
  shift
done

# The ssh rows need an sshd binary; the system's sshd is never started or reconfigured (the harness runs its own).
install_sshd() {
  [[ -x /usr/sbin/sshd ]] && return 0
  if [[ $(id -u) -ne 0 ]] || ! command -v apt-get >/dev/null; then
    echo "no /usr/sbin/sshd and cannot install openssh-server here: the ssh rows will be skipped" >&2
    return 0
  fi
  echo "installing openssh-server (Debian package) for the ssh rows…" >&2
  { apt-get -o DPkg::Lock::Timeout=120 update -qq &&
    DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=120 install -y -qq openssh-server; } >&2 ||
    echo "openssh-server did not install: the ssh rows will be skipped" >&2
}
install_sshd

# the harness's own jar is not one of the two build_if_needed looks at: a change to its sources rebuilds too
if [[ ! -f "$BENCH_JAR" ]] || [[ -n "$(find "$ROOT/bench-harness/pom.xml" "$ROOT/bench-harness/src/main" -type f \
    -newer "$BENCH_JAR" -print -quit 2>/dev/null || true)" ]]; then
  echo "building fleetbus (mvn package)…" >&2
  (cd "$ROOT" && mvn -q -B package -DskipTests) >&2
else
  build_if_needed
fi

child_flags="${JVM_FLAGS[*]} ${FLEETBUS_JAVA_OPTS:-}"
# the harness gives each process it starts its own FLEETBUS_* settings; none may leak in from this shell
while read -r var; do unset "$var"; done < <(compgen -e | grep '^FLEETBUS_' || true)

cd "$ROOT"
mkdir -p bench/work
# a safety net only: the harness ends by itself before this (a full run on a quiet machine takes ~17 min; on a 2-core
# machine shared with five other builds one took over 25 min and was stopped at the old 1,500 s limit in edge-scale).
# The harness writes the rows measured so far after each phase, so a run stopped here keeps them.
exec timeout --signal=TERM --kill-after=30 3600 java "${JVM_FLAGS[@]}" -jar "$BENCH_JAR" "${mode[@]}" \
  --root "$ROOT" --hub-jar "$HUB_JAR" --node-jar "$NODE_JAR" --harness-jar "$BENCH_JAR" \
  --jvm-flags "$child_flags" --hub-flags "${HUB_JVM_FLAGS[*]}" --node-flags "${NODE_JVM_FLAGS[*]}" --command "scripts/bench.sh${mode:+ ${mode[*]}}"
