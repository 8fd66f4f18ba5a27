// Nodes: online state, capability tier, labels, platform, live CPU / memory / disk from heartbeats;
// offline nodes greyed with when they were last seen.
import { h, ago } from '../dom.js';
import { sparkline } from '../sparkline.js';

const gb = (mb) => (mb / 1024).toFixed(1);

export function nodesView(live, history) {
  const rows = h('tbody');
  const summary = h('p', { class: 'muted', id: 'nodes-summary' }, 'waiting for the first answer from the hub…');
  const element = h('div', { class: 'card' },
    h('h2', {}, 'Nodes'),
    summary,
    h('table', { id: 'nodes-table' },
      h('thead', {}, h('tr', {}, ['State', 'Node', 'Tier', 'Labels', 'Platform', 'CPU', 'Memory used', 'Disk free', 'Heartbeat']
        .map((t) => h('th', {}, t)))),
      rows));
  let nodes = [];
  let pending = false;

  const render = () => {
    pending = false;
    rows.replaceChildren(...nodes.map((n) => row(n, history.series(n.nodeId))));
    const up = nodes.filter((n) => n.online).length;
    summary.textContent = nodes.length === 0 ? 'No node has registered with this hub yet.'
      : `${up} of ${nodes.length} nodes online`;
  };
  const renderSoon = () => {
    if (!pending) {
      pending = true;
      requestAnimationFrame(render);
    }
  };
  live.onNodes((list) => {
    nodes = [...list].sort((a, b) => Number(b.online) - Number(a.online) || a.nodeId.localeCompare(b.nodeId));
    renderSoon();
  });
  live.onHeartbeat(renderSoon);
  setInterval(renderSoon, 5000); // keeps "… ago" current

  return { element, shown: renderSoon };
}

function row(n, series) {
  const m = n.metrics;
  const labels = Object.entries(n.labels || {}).map(([k, v]) => h('span', { class: 'chip' }, `${k}=${v}`));
  return h('tr', { class: n.online ? 'online' : 'offline', 'data-node': n.nodeId },
    h('td', {}, h('span', { class: 'state' }, h('span', { class: 'dot' }), n.online ? 'online' : 'offline')),
    h('td', { class: 'mono' }, n.nodeId, n.agentVersion ? h('div', { class: 'help' }, `agent ${n.agentVersion}`) : null),
    h('td', {}, h('span', { class: `tier tier-${n.capabilityTier}` }, n.capabilityTier), confinement(n.confinement)),
    h('td', {}, labels.length ? labels : h('span', { class: 'muted' }, '—')),
    h('td', {}, n.platform),
    h('td', { class: 'cpu' }, metric(series.cpu, 100, m ? `${m.cpuPercent.toFixed(1)} %` : '—', 'CPU %')),
    h('td', { class: 'memory' }, metric(series.mem, undefined, m ? `${gb(m.memoryMb)} / ${gb(m.memoryTotalMb)} GB` : '—',
      'memory used %')),
    h('td', { class: 'disk' }, metric(series.disk, undefined, m ? `${gb(m.diskFreeMb)} GB` : '—', 'disk free GB')),
    h('td', { class: 'seen' }, n.online ? ago(n.lastHeartbeat || n.lastSeen) : `last seen ${ago(n.lastSeen)}`));
}

/** What the kernel lets the node's processes do: a warning where a node that starts processes is not confined. */
function confinement(c) {
  if (!c || !c.mode) return null;
  if (c.mode !== 'none') return h('div', { class: 'help confinement', title: `Landlock ABI ${c.abi}` }, c.mode);
  if (c.reason === 'starts no processes') return null;
  return h('div', { class: 'help confinement unconfined', title: c.required ? 'command tools refuse to run (required)'
    : 'command tools run unconfined' }, `unconfined (${c.reason})`);
}

function metric(values, max, text, label) {
  return h('div', { class: 'metric' }, sparkline(values, { max, label }), h('span', { class: 'value' }, text));
}
