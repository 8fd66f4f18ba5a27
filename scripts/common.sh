# Shared by the fleetbus scripts: JVM flags, jar paths, build-if-needed.
ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
HUB_JAR="$ROOT/hub-verticles/target/hub-verticles-0.1.0-SNAPSHOT-fat.jar"
NODE_JAR="$ROOT/node-verticles/target/node-verticles-0.1.0-SNAPSHOT-fat.jar"
# Hazelcast wants these on Java 17 (shared/PLATFORM-FACTS.md); same list as the surefire argLine.
JVM_FLAGS=(--add-modules java.se --add-exports java.base/jdk.internal.ref=ALL-UNNAMED
  --add-opens java.base/java.lang=ALL-UNNAMED --add-opens java.base/sun.nio.ch=ALL-UNNAMED
  --add-opens java.management/sun.management=ALL-UNNAMED
  --add-opens jdk.management/com.sun.management.internal=ALL-UNNAMED
  -Dhazelcast.logging.type=slf4j
  -Dvertx.logger-delegate-factory-class-name=io.vertx.core.logging.SLF4JLogDelegateFactory)
# Memory that fits each job (docs/operating.md "Configuration"; issue 17): the hub keeps the fleet's state (10,000 nodes: ~70 MiB
# of heap after GC) and serves the API; a node keeps little and runs tools. Later flags win: FLEETBUS_JAVA_OPTS
# (e.g. -Xmx1g for a hub of 50,000 nodes) comes after these on every command line.
# -XX:-DontCompileHugeMethods: vertx-json-schema's validator is one 9,290-byte method, over HotSpot's 8,000-byte limit
# for compiling, so every tool call's argument check ran it in the interpreter on hub and node (issue 17).
# -XX:TrimNativeHeapInterval=5000 (JDK 17.0.9 and later; left out on an older JVM, which would refuse it): glibc keeps
# memory the JVM's threads freed (compiler arenas, Netty, Hazelcast) in per-thread arenas; a node under the bench load
# measured 207 MiB RSS against 158 MiB the JVM had committed (NMT), and one trim gave 26 MiB back.
TRIM_FLAGS=()
if java -XX:TrimNativeHeapInterval=5000 -version >/dev/null 2>&1; then
  TRIM_FLAGS=(-XX:TrimNativeHeapInterval=5000)
fi
HUB_JVM_FLAGS=(-Xms32m -Xmx256m -XX:+UseSerialGC -XX:ReservedCodeCacheSize=64m -XX:MaxMetaspaceSize=128m -Xss512k
  -XX:MaxDirectMemorySize=64m -XX:-DontCompileHugeMethods "${TRIM_FLAGS[@]}")
NODE_JVM_FLAGS=(-Xms16m -Xmx128m -XX:+UseSerialGC -XX:ReservedCodeCacheSize=48m -XX:MaxMetaspaceSize=128m -Xss512k
  -XX:MaxDirectMemorySize=32m -XX:-DontCompileHugeMethods "${TRIM_FLAGS[@]}")

# What the two jars are built from: the poms and src/main of the modules in them. Nothing else counts: editing or
# adding conf/*.json, data/, logs, clients/ or bench results never rebuilds.
jar_sources() {
  local m
  printf '%s\n' "$ROOT/pom.xml"
  for m in shared-codecs hub-verticles node-verticles; do
    printf '%s\n' "$ROOT/$m/pom.xml" "$ROOT/$m/src/main"
  done
}

# The build (tests put a stand-in here).
FLEETBUS_BUILD="${FLEETBUS_BUILD:-mvn -q -B package -DskipTests}"

# The build's output as whole lines without terminal escapes: Debian's Maven 3.8 ends even a quiet build with
# ESC[0m and no newline, which would put it at the start of the next line a script prints (issue 33: run.sh's
# "api: …" line). Empty lines after the stripping are dropped.
clean_lines() {
  awk '{ gsub(/\033\[[0-9;?]*[A-Za-z]/, ""); if (length($0)) print; fflush() }'
}

# Builds the two jars when they are missing or older than a source or pom. A running hub or node keeps the jar it
# started from: the old jars are moved aside (same file for whoever has it open) and the build writes new files,
# never over a jar in use; a failed build puts the old jars back. --quiet: no "up to date" line (the CLI).
build_if_needed() {
  local oldest newest="" jar sources=() quiet="${1:-}"
  if [[ -f "$HUB_JAR" && -f "$NODE_JAR" ]]; then
    oldest="$HUB_JAR"
    [[ "$NODE_JAR" -ot "$HUB_JAR" ]] && oldest="$NODE_JAR"
    mapfile -t sources < <(jar_sources)
    # -quit, not "| head -1": under pipefail, find killed by SIGPIPE would end the calling script silently
    newest=$(find "${sources[@]}" -type f -newer "$oldest" -print -quit 2>/dev/null || true)
    if [[ -z "$newest" ]]; then
      [[ "$quiet" == --quiet ]] || echo "fleetbus: jars up to date (no source or pom changed since they were built)" >&2
      return 0
    fi
    echo "fleetbus: ${newest#"$ROOT/"} changed since the jars were built" >&2
  fi
  echo "building fleetbus ($FLEETBUS_BUILD)…" >&2
  for jar in "$HUB_JAR" "$NODE_JAR"; do
    if [[ -f "$jar" ]]; then mv -f "$jar" "$jar.prev"; fi
  done
  if (set -o pipefail; cd "$ROOT" && eval "$FLEETBUS_BUILD" 2>&1 | clean_lines) >&2; then
    # unlinked, not overwritten: a process still running from an old jar keeps reading it
    rm -f "$HUB_JAR.prev" "$NODE_JAR.prev"
    return 0
  fi
  for jar in "$HUB_JAR" "$NODE_JAR"; do
    if [[ -f "$jar.prev" ]]; then mv -f "$jar.prev" "$jar"; fi
  done
  echo "fleetbus: the build failed (see above); the jars are the ones from before" >&2
  return 1
}

# What start-hub.sh and start-node.sh do (role: hub or node): build if needed, then become that JVM, with
# conf/<role>.json unless arguments are given. FLEETBUS_JAVA_OPTS comes after the role's flags, so it wins.
start_in_foreground() {
  local role="$1" jar flags
  shift
  case "$role" in
    hub) jar="$HUB_JAR"; flags=("${HUB_JVM_FLAGS[@]}") ;;
    node) jar="$NODE_JAR"; flags=("${NODE_JVM_FLAGS[@]}") ;;
    *) echo "start_in_foreground: hub or node, not '$role'" >&2; return 2 ;;
  esac
  build_if_needed
  cd "$ROOT"
  [[ $# -eq 0 ]] && set -- -conf "conf/$role.json"
  exec java "${JVM_FLAGS[@]}" "${flags[@]}" ${FLEETBUS_JAVA_OPTS:-} -jar "$jar" "$@"
}
