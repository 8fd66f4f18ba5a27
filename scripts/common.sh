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
# Memory that fits each job (README "Configuration"; issue 17): the hub keeps the fleet's state (10,000 nodes: ~70 MiB
# of heap after GC) and serves the API; a node keeps little and runs tools. Later flags win: FLEETBUS_JAVA_OPTS
# (e.g. -Xmx1g for a hub of 50,000 nodes) comes after these on every command line.
HUB_JVM_FLAGS=(-Xms32m -Xmx256m -XX:+UseSerialGC -XX:ReservedCodeCacheSize=64m -XX:MaxMetaspaceSize=128m -Xss512k
  -XX:MaxDirectMemorySize=64m)
NODE_JVM_FLAGS=(-Xms16m -Xmx128m -XX:+UseSerialGC -XX:ReservedCodeCacheSize=48m -XX:MaxMetaspaceSize=128m -Xss512k
  -XX:MaxDirectMemorySize=32m)

# Builds the two jars when they are missing or older than any source file.
build_if_needed() {
  local newest=""
  if [[ -f "$HUB_JAR" && -f "$NODE_JAR" ]]; then
    # -quit, not "| head -1": under pipefail, find killed by SIGPIPE would end the calling script silently
    newest=$(find "$ROOT" -path "$ROOT/*/target" -prune -o -path "$ROOT/data" -prune -o -name node_modules -prune -o \
      \( -name '*.java' -o -name 'pom.xml' -o -name '*.json' -o -name '*.xml' -o -name '*.txt' \) -newer "$HUB_JAR" \
      -print -quit 2>/dev/null || true)
  fi
  if [[ ! -f "$HUB_JAR" || ! -f "$NODE_JAR" || -n "$newest" ]]; then
    echo "building fleetbus (mvn package)…" >&2
    (cd "$ROOT" && mvn -q -B package -DskipTests) >&2
  fi
}
