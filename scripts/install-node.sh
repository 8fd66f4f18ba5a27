#!/usr/bin/env bash
# Installs the fleetbus node agent on this Linux machine as the systemd service fleetbus-node; where systemd is not
# PID 1 (a container, another init) it installs the same and says how to start it, or runs it with --foreground.
#
#   sudo FLEETBUS_ENROLLMENT_TOKEN=<token> scripts/install-node.sh --hub 10.0.0.5:5701 --cluster-name NAME [options]
#   sudo FLEETBUS_ENROLLMENT_TOKEN=<token> scripts/install-node.sh --edge --hub hub.example.org:7443 \
#        --edge-cert-sha256 HEX [options]      (a machine outside the cluster network: see docs/operating.md)
#
# Options:
#   --hub HOST[:PORT][,HOST...]  the hub(s) to join (or env FLEETBUS_CLUSTER_MEMBERS)             required
#   --token-file FILE|-          the enrollment token, read from a file or stdin
#                                (or env FLEETBUS_ENROLLMENT_TOKEN; never pass it as an argument)  required
#   --address IP                 this machine's address on the fleet network (default: the source
#                                address of the route to the first hub)
#   --node-id ID                 default: the host name
#   --tier root|sudo|unprivileged  capability tier (default: unprivileged); root runs as root,
#                                the others as the system user 'fleetbus'
#   --labels k=v,k=v             labels the router can select on
#   --allow cmd,cmd              first words run_command may run (default: the node's built-in list)
#   --cluster-name NAME          the fleet's cluster name (or env FLEETBUS_CLUSTER_NAME): the
#                                enrollment answer's clusterName, the hub's GET /ready  required (not with --edge)
#   --edge                       an edge node: no cluster membership; --hub names the hubs' edge
#                                endpoints HOST:PORT[,HOST:PORT...] (the enrollment answer's
#                                edgeEndpoints joined by commas, or its edgeEndpoint)
#   --edge-cert-sha256 HEX       with --edge: the hubs' edge certificate to pin (the enrollment
#                                answer's edgeCertSha256)                                     required
#   --jar FILE                   the node fat jar (default: node-verticles/target/…-fat.jar of this checkout)
#   --java FILE                  default: the java on PATH
#   --root DIR                   install into DIR instead of / (no systemctl); for packaging and tests
#   --no-start                   install and enable nothing; print the systemctl commands instead
#   --foreground                 install, then run the node in this terminal instead of as a service
#                                (no init system needed: a container's command; stop it with SIGTERM)
#                                Without systemd as PID 1 the installer starts nothing and prints
#                                /opt/fleetbus/node/fleetbus-node, the command that runs the node
#   --uninstall                  stop and remove the service, jar and conf; keeps the data folder and user
set -euo pipefail
source "$(dirname "$0")/common.sh"

SERVICE=fleetbus-node
SERVICE_USER=fleetbus
INSTALL_DIR=/opt/fleetbus/node
CONF_DIR=/etc/fleetbus
DATA_DIR=/var/lib/fleetbus/node
UNIT_DIR=/etc/systemd/system
TEMPLATE="$ROOT/conf/systemd/$SERVICE.service"

hub="${FLEETBUS_CLUSTER_MEMBERS:-}"
token="${FLEETBUS_ENROLLMENT_TOKEN:-}"
token_file=""
address=""
node_id=""
tier=unprivileged
labels=""
allow=""
cluster_name="${FLEETBUS_CLUSTER_NAME:-}"
jar="$NODE_JAR"
java_bin="$(command -v java || true)"
# heap and GC come from NODE_JVM_FLAGS (scripts/common.sh), as for scripts/start-node.sh; an -Xmx here came first on
# the unit's command line, so the later -Xmx128m overrode it and the unit only looked as if the node had 256 MiB
java_opts="-XX:+ExitOnOutOfMemoryError"
dest=""
start=yes
uninstall=no
edge=no
edge_cert=""
foreground=no

die() { echo "install-node: $*" >&2; exit 2; }

while [[ $# -gt 0 ]]; do
  case "$1" in
    --hub) hub="${2:?--hub needs a value}"; shift 2 ;;
    --token-file) token_file="${2:?--token-file needs a file or -}"; shift 2 ;;
    --token) die "pass the token in FLEETBUS_ENROLLMENT_TOKEN or --token-file, not on the command line (other users can read it there)" ;;
    --address) address="${2:?--address needs a value}"; shift 2 ;;
    --node-id) node_id="${2:?--node-id needs a value}"; shift 2 ;;
    --tier) tier="${2:?--tier needs a value}"; shift 2 ;;
    --labels) labels="${2?--labels needs a value}"; shift 2 ;;
    --allow) allow="${2?--allow needs a value}"; shift 2 ;;
    --cluster-name) cluster_name="${2:?--cluster-name needs a value}"; shift 2 ;;
    --edge) edge=yes; shift ;;
    --edge-cert-sha256) edge_cert="${2:?--edge-cert-sha256 needs the hex SHA-256 of the hubs edge certificate}"; shift 2 ;;
    --jar) jar="${2:?--jar needs a file}"; shift 2 ;;
    --java) java_bin="${2:?--java needs a file}"; shift 2 ;;
    --root) dest="${2:?--root needs a folder}"; shift 2 ;;
    --no-start) start=no; shift ;;
    --foreground) foreground=yes; shift ;;
    --uninstall) uninstall=yes; shift ;;
    -h|--help) sed -n '2,/^set -euo/p' "$0" | sed '$d; s/^# \{0,1\}//'; exit 0 ;;
    *) die "unknown option '$1' (see --help)" ;;
  esac
done

dest="${dest%/}"
[[ -n "$dest" || "$foreground" == yes ]] && start=no
# systemd runs the service only where it is PID 1 (sd_booted's test): elsewhere install, then say how to start it
no_systemd=no
if [[ "$start" == yes && ! -d /run/systemd/system ]]; then
  no_systemd=yes
  start=no
fi
if [[ "$(id -u)" -ne 0 && -z "$dest" ]]; then
  die "run as root (sudo): it creates a system user, writes /etc and /opt and enables a service"
fi

systemctl_or_print() {
  if [[ "$start" == yes ]]; then systemctl "$@"; else echo "  systemctl $*"; fi
}

if [[ "$uninstall" == yes ]]; then
  if [[ "$start" == yes ]]; then systemctl disable --now "$SERVICE.service" || true; fi
  rm -f "$dest$UNIT_DIR/$SERVICE.service" "$dest$INSTALL_DIR/fleetbus-node.jar" "$dest$INSTALL_DIR/cluster.xml" \
    "$dest$CONF_DIR/node.json" "$dest$CONF_DIR/node.env" "$dest$INSTALL_DIR/fleetbus-node"
  rmdir "$dest$INSTALL_DIR" 2>/dev/null || true
  if [[ "$start" == yes ]]; then systemctl daemon-reload; fi
  echo "fleetbus node removed; kept $dest$DATA_DIR and the user '$SERVICE_USER' (remove them by hand if you wish)"
  exit 0
fi

# --- check every input before anything is written ---------------------------------------------
[[ -n "$hub" ]] || die "say which hub to join: --hub HOST:5701 (or FLEETBUS_CLUSTER_MEMBERS)"
[[ "$hub" =~ ^[A-Za-z0-9.:_-]+(,[A-Za-z0-9.:_-]+)*$ ]] || die "--hub '$hub' must be HOST[:PORT] items separated by commas"
if [[ -n "$token_file" ]]; then
  if [[ "$token_file" == - ]]; then IFS= read -r token || true; else token="$(<"$token_file")"; fi
fi
token="${token//[$'\r\n ']/}"
[[ -n "$token" ]] || die "an enrollment token is needed: ask the hub for one (POST /api/v1/enrollments) and pass it in FLEETBUS_ENROLLMENT_TOKEN or --token-file"
[[ "$token" =~ ^[A-Za-z0-9._~+/=-]+$ ]] || die "the enrollment token has characters a token never has; check you copied it whole"
case "$tier" in root|sudo|unprivileged) ;; *) die "--tier must be root, sudo or unprivileged (not '$tier')" ;; esac
[[ -n "$node_id" ]] || node_id="$(uname -n | tr 'A-Z' 'a-z' | sed 's/[^a-z0-9_.-]/-/g')"
[[ "$node_id" =~ ^[A-Za-z0-9][A-Za-z0-9_.-]{0,62}$ ]] || die "--node-id '$node_id' must be 1-63 letters, digits, '.', '_' or '-'"
if [[ "$edge" == yes ]]; then
  [[ "$hub" =~ ^[A-Za-z0-9._-]+:[0-9]+(,[A-Za-z0-9._-]+:[0-9]+)*$ ]] || die "with --edge, --hub names the hubs' edge endpoints as HOST:PORT[,HOST:PORT...] (the enrollment answer's edgeEndpoint)"
  edge_cert="${edge_cert//:/}"
  [[ "$edge_cert" =~ ^[0-9A-Fa-f]{64}$ ]] || die "--edge needs --edge-cert-sha256 with the 64 hex digits of the hubs' edge certificate (the enrollment answer's edgeCertSha256)"
else
  [[ -n "$cluster_name" ]] || die "say which fleet: --cluster-name NAME (POST /api/v1/enrollments answers it as clusterName with the token; a hub's GET /ready shows it)"
  [[ "$cluster_name" =~ ^[A-Za-z0-9_.-]+$ ]] || die "--cluster-name '$cluster_name' must be letters, digits, '.', '_' or '-'"
fi
[[ -f "$jar" ]] || die "no node jar at $jar: build it with 'mvn -q -B package -DskipTests' or pass --jar"
[[ -n "$java_bin" && -x "$java_bin" ]] || die "no java found: install a JDK 17+ (e.g. apt-get install openjdk-17-jre-headless) or pass --java"

# labels k=v,k=v and the allowlist become JSON; only plain characters, so nothing needs escaping
labels_json="{}"
if [[ -n "$labels" ]]; then
  labels_json=""
  IFS=, read -ra pairs <<<"$labels"
  for pair in "${pairs[@]}"; do
    [[ "$pair" =~ ^([A-Za-z0-9_.-]+)=([A-Za-z0-9_.:/-]*)$ ]] || die "label '$pair' must be key=value of letters, digits, '.', '_', '-'"
    labels_json+="${labels_json:+, }\"${BASH_REMATCH[1]}\": \"${BASH_REMATCH[2]}\""
  done
  labels_json="{ $labels_json }"
fi
allow_json=""
if [[ -n "$allow" ]]; then
  IFS=, read -ra cmds <<<"$allow"
  for cmd in "${cmds[@]}"; do
    [[ "$cmd" =~ ^[A-Za-z0-9_.+-]+$ ]] || die "allowed command '$cmd' must be a plain program name"
    allow_json+="${allow_json:+, }\"$cmd\""
  done
  allow_json=",
  \"allowlist\": [ $allow_json ]"
fi

if [[ -z "$address" && "$edge" == yes ]]; then
  address="(edge: links out)"
elif [[ -z "$address" ]]; then
  first_hub="${hub%%,*}"
  first_hub="${first_hub%%:*}"
  hub_ip="$(getent ahostsv4 "$first_hub" | awk 'NR==1 {print $1}')"
  [[ -n "$hub_ip" ]] || die "cannot resolve hub host '$first_hub'; pass --address with this machine's fleet address"
  address="$(ip -o -4 route get "$hub_ip" 2>/dev/null | sed -n 's/.* src \([0-9.]*\).*/\1/p')"
  [[ -n "$address" ]] || die "cannot tell which of this machine's addresses reaches $hub_ip; pass --address"
fi
[[ "$edge" == yes || "$address" =~ ^[A-Za-z0-9.:-]+$ ]] || die "--address '$address' is not an address"

# --- the service user --------------------------------------------------------------------------
run_as=root
if [[ "$tier" != root ]]; then
  run_as="$SERVICE_USER"
  if [[ "$(id -u)" -ne 0 ]]; then
    echo "install-node: not root: leaving user creation and ownership to the packager" >&2
  elif [[ -n "$dest" && ! -f "$dest/etc/passwd" ]]; then
    echo "install-node: no etc/passwd under $dest: the user '$SERVICE_USER' is left to the packager" >&2
  elif [[ -n "$dest" ]]; then
    grep -q "^$SERVICE_USER:" "$dest/etc/passwd" 2>/dev/null || useradd --prefix "$dest" --system --user-group \
      --home-dir "$DATA_DIR" --no-create-home --shell /usr/sbin/nologin "$SERVICE_USER"
  else
    getent passwd "$SERVICE_USER" >/dev/null || useradd --system --user-group --home-dir "$DATA_DIR" \
      --no-create-home --shell /usr/sbin/nologin "$SERVICE_USER"
  fi
fi
# numeric ids, read from the target's own passwd file (which is the real one unless --root)
owner_of() {
  awk -F: -v u="$1" '$1 == u {print $3 ":" $4; found=1} END {if (!found) print "0:0"}' "$dest/etc/passwd" 2>/dev/null || echo "0:0"
}
owner="$(owner_of "$run_as")"
owner_uid="${owner%%:*}"
owner_gid="${owner##*:}"
chown_if_root() { if [[ "$(id -u)" -eq 0 ]]; then chown "$@"; fi; }

# --- files -------------------------------------------------------------------------------------
install -d -m 0755 "$dest$INSTALL_DIR" "$dest$UNIT_DIR"
install -d -m 0750 "$dest$CONF_DIR" "$dest$DATA_DIR" "$(dirname "$dest$DATA_DIR")"
chown_if_root "0:$owner_gid" "$dest$CONF_DIR"
chown_if_root "$owner_uid:$owner_gid" "$dest$DATA_DIR" "$(dirname "$dest$DATA_DIR")"
install -m 0644 "$jar" "$dest$INSTALL_DIR/fleetbus-node.jar"
install -m 0644 "$ROOT/cluster.xml" "$dest$INSTALL_DIR/cluster.xml"

umask 077
if [[ "$edge" == yes ]]; then
  hubs_json=""
  IFS=, read -ra hub_list <<<"$hub"
  for h in "${hub_list[@]}"; do hubs_json+="${hubs_json:+, }\"$h\""; done
  reach="\"transport\": \"edge\",
  \"edge\": { \"hubs\": [ $hubs_json ], \"certSha256\": \"$edge_cert\" }"
else
  reach="\"cluster\": { \"config\": \"$INSTALL_DIR/cluster.xml\", \"name\": \"$cluster_name\", \"host\": \"$address\" }"
fi
cat >"$dest$CONF_DIR/node.json.new" <<JSON
{
  "nodeId": "$node_id",
  "capabilityTier": "$tier",
  "labels": $labels_json,
  "dataDir": "$DATA_DIR"$allow_json,
  $reach
}
JSON
chmod 0640 "$dest$CONF_DIR/node.json.new"
chown_if_root "0:$owner_gid" "$dest$CONF_DIR/node.json.new"
mv -f "$dest$CONF_DIR/node.json.new" "$dest$CONF_DIR/node.json"

# the secret: root-only, systemd reads it before it drops privileges
if [[ "$edge" == yes ]]; then
  printf 'FLEETBUS_ENROLLMENT_TOKEN=%s\n' "$token" >"$dest$CONF_DIR/node.env.new"
else
  printf 'FLEETBUS_CLUSTER_MEMBERS=%s\nFLEETBUS_ENROLLMENT_TOKEN=%s\n' "$hub" "$token" >"$dest$CONF_DIR/node.env.new"
fi
chmod 0600 "$dest$CONF_DIR/node.env.new"
chown_if_root 0:0 "$dest$CONF_DIR/node.env.new"
mv -f "$dest$CONF_DIR/node.env.new" "$dest$CONF_DIR/node.env"

jvm_flags="${JVM_FLAGS[*]} ${NODE_JVM_FLAGS[*]}"
keep_ro='/^@RO@/d'
[[ "$tier" == unprivileged ]] && keep_ro='s/^@RO@//'
sed -e "$keep_ro" -e "s|@NODE_ID@|$node_id|g" -e "s|@USER@|$run_as|g" -e "s|@CONF_DIR@|$CONF_DIR|g" \
  -e "s|@DATA_DIR@|$DATA_DIR|g" -e "s|@INSTALL_DIR@|$INSTALL_DIR|g" -e "s|@JAVA@|$java_bin|g" \
  -e "s|@JAVA_OPTS@|$java_opts|g" -e "s|@JVM_FLAGS@|$jvm_flags|g" "$TEMPLATE" >"$dest$UNIT_DIR/$SERVICE.service.new"
chmod 0644 "$dest$UNIT_DIR/$SERVICE.service.new"
mv -f "$dest$UNIT_DIR/$SERVICE.service.new" "$dest$UNIT_DIR/$SERVICE.service"
# the same command without systemd (a container's command, another init, --foreground): the unit's environment file,
# user, folder and umask, then the JVM in place of the script
drop=""
if [[ "$run_as" != root && "$owner_uid" == 0 ]]; then
  drop="if [[ \"\$(id -u)\" -eq 0 ]]; then echo 'fleetbus-node: no user $run_as to run as: create it (useradd --system $run_as), then install again' >&2; exit 1; fi"
elif [[ "$run_as" != root ]]; then
  drop="if [[ \"\$(id -u)\" -eq 0 ]]; then exec setpriv --reuid=$owner_uid --regid=$owner_gid --clear-groups \"\${cmd[@]}\"; fi"
fi
cat >"$dest$INSTALL_DIR/fleetbus-node.new" <<RUN
#!/usr/bin/env bash
# fleetbus node agent '$node_id' without systemd (written by install-node.sh: what $SERVICE.service runs)
set -euo pipefail
set -a; . "$dest$CONF_DIR/node.env"; set +a
export FLEETBUS_NODE_DATA="$dest$DATA_DIR"
cd "$dest$DATA_DIR"
umask 0027
cmd=($java_bin $java_opts $jvm_flags -jar "$dest$INSTALL_DIR/fleetbus-node.jar" -conf "$dest$CONF_DIR/node.json")
$drop
exec "\${cmd[@]}"
RUN
chmod 0755 "$dest$INSTALL_DIR/fleetbus-node.new"
mv -f "$dest$INSTALL_DIR/fleetbus-node.new" "$dest$INSTALL_DIR/fleetbus-node"
umask 022

echo "installed fleetbus node '$node_id' (tier $tier, runs as $run_as, address $address) into ${dest:-/}"
echo "  unit: $dest$UNIT_DIR/$SERVICE.service   conf: $dest$CONF_DIR/node.json   data: $dest$DATA_DIR"
if [[ "$foreground" == yes ]]; then
  echo "running the node in the foreground: $dest$INSTALL_DIR/fleetbus-node"
  exec "$dest$INSTALL_DIR/fleetbus-node"
fi
if [[ "$no_systemd" == yes ]]; then
  echo "no systemd here (PID 1 is $(cat /proc/1/comm 2>/dev/null || echo unknown)): nothing started. Start the node with"
  echo "  $INSTALL_DIR/fleetbus-node        (foreground; as a container's command or from your init system)"
  echo "or install with --foreground. The hub logs 'node online [node: $node_id' once it is up."
  exit 0
fi
[[ "$start" == yes ]] || echo "to start it:"
systemctl_or_print daemon-reload
systemctl_or_print enable "$SERVICE.service"
systemctl_or_print restart "$SERVICE.service"
echo "check: systemctl status $SERVICE · journalctl -u $SERVICE -f · the hub logs 'node online [node: $node_id'"
