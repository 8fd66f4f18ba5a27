// Nodes: online state, capability tier, labels, platform, live CPU / memory / disk from heartbeats;
// offline nodes greyed with when they were last seen. Search and filters narrow the list; a node's id opens its page.
import { h, ago, stamp } from '../dom.js';
import { sparkline } from '../sparkline.js';

const gb = (mb) => (mb / 1024).toFixed(1);
const enc = encodeURIComponent;

/** Enough decimals that a small span between the lowest and highest value still shows in the labels. */
const digits = (span) => (span === 0 || span >= 1 ? 1 : span >= 0.1 ? 2 : 3);

/** How each figure's scale reads (CPU is 0-100; memory and disk span the values seen). */
export const SCALES = {
  cpu: { max: 100, format: (v) => `${Math.round(v)} %` },
  mem: { format: (v, span) => `${v.toFixed(digits(span))} %` },
  disk: { format: (v, span) => `${v.toFixed(digits(span))} GB` },
};

export function nodesView(live, history) {
  const rows = h('tbody');
  const summary = h('p', { class: 'muted', id: 'nodes-summary' }, 'waiting for the first answer from the hub…');
  const search = h('input', { type: 'search', id: 'nodes-search', placeholder: 'id, label (site=lab), platform, tier',
    'aria-label': 'search nodes' });
  const state = h('select', { id: 'nodes-state', 'aria-label': 'state' },
    [['', 'any state'], ['online', 'online'], ['offline', 'offline']].map(([v, t]) => h('option', { value: v }, t)));
  const tier = h('select', { id: 'nodes-tier', 'aria-label': 'tier' },
    [['', 'any tier'], ['root', 'root'], ['sudo', 'sudo'], ['unprivileged', 'unprivileged']]
      .map(([v, t]) => h('option', { value: v }, t)));
  const element = h('div', { class: 'card' },
    h('h2', {}, 'Nodes'),
    h('div', { class: 'filters', id: 'nodes-filters' },
      h('div', { class: 'grow' }, h('label', { for: 'nodes-search' }, 'search'), search),
      h('div', {}, h('label', { for: 'nodes-state' }, 'state'), state),
      h('div', {}, h('label', { for: 'nodes-tier' }, 'tier'), tier)),
    summary,
    h('table', { id: 'nodes-table' },
      h('thead', {}, h('tr', {}, ['State', 'Node', 'Tier', 'Labels', 'Platform', 'CPU', 'Memory used', 'Disk free', 'Heartbeat']
        .map((t) => h('th', {}, t)))),
      rows));
  let nodes = [];
  let pending = false;

  const render = () => {
    pending = false;
    const shown = nodes.filter(matches(search.value, state.value, tier.value));
    rows.replaceChildren(...shown.map((n) => row(n, history.series(n.nodeId))));
    const up = nodes.filter((n) => n.online).length;
    const filtered = shown.length === nodes.length ? '' : ` · ${shown.length} shown`;
    summary.textContent = nodes.length === 0 ? 'No node has registered with this hub yet.'
      : `${up} of ${nodes.length} nodes online${filtered}`;
    if (nodes.length > 0 && shown.length === 0) {
      rows.append(h('tr', { class: 'none' }, h('td', { colspan: 9, class: 'muted' }, 'No node matches the search and filters.')));
    }
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
  for (const input of [search, state, tier]) input.addEventListener('input', renderSoon);
  setInterval(renderSoon, 5000); // keeps "… ago" current

  return { element, shown: renderSoon };
}

/** Every word of the search must appear in the node's id, a label (k=v), platform, tier or agent version. */
function matches(text, state, tier) {
  const words = text.toLowerCase().split(/\s+/).filter(Boolean);
  return (n) => {
    if (state && (state === 'online') !== Boolean(n.online)) return false;
    if (tier && n.capabilityTier !== tier) return false;
    const hay = [n.nodeId, n.platform, n.capabilityTier, n.agentVersion,
      ...Object.entries(n.labels || {}).map(([k, v]) => `${k}=${v}`)].filter(Boolean).join(' ').toLowerCase();
    return words.every((w) => hay.includes(w));
  };
}

function row(n, series) {
  const m = n.metrics;
  const labels = Object.entries(n.labels || {}).map(([k, v]) => h('span', { class: 'chip' }, `${k}=${v}`));
  const seen = n.online ? n.lastHeartbeat || n.lastSeen : n.lastSeen;
  return h('tr', { class: n.online ? 'online' : 'offline', 'data-node': n.nodeId },
    h('td', {}, h('span', { class: 'state' }, h('span', { class: 'dot' }), n.online ? 'online' : 'offline')),
    h('td', { class: 'mono' }, h('a', { href: `#node/${enc(n.nodeId)}`, class: 'node-link' }, n.nodeId),
      n.agentVersion ? h('div', { class: 'help' }, `agent ${n.agentVersion}`) : null),
    h('td', {}, h('span', { class: `tier tier-${n.capabilityTier}` }, n.capabilityTier), confinement(n.confinement)),
    h('td', {}, labels.length ? labels : h('span', { class: 'muted' }, '—')),
    h('td', {}, n.platform),
    h('td', { class: 'cpu' }, metric(series.cpu, SCALES.cpu, m ? `${m.cpuPercent.toFixed(1)} %` : '—', 'CPU %')),
    h('td', { class: 'memory' }, metric(series.mem, SCALES.mem, m ? `${gb(m.memoryMb)} / ${gb(m.memoryTotalMb)} GB` : '—',
      'memory used %')),
    h('td', { class: 'disk' }, metric(series.disk, SCALES.disk, m ? `${gb(m.diskFreeMb)} GB` : '—', 'disk free GB')),
    h('td', { class: 'seen', title: seen ? stamp(seen) : '' }, n.online ? ago(seen) : `last seen ${ago(seen)}`));
}

/** What the kernel lets the node's processes do: a warning where a node that starts processes is not confined. */
export function confinement(c) {
  if (!c || !c.mode) return null;
  if (c.mode !== 'none') return h('div', { class: 'help confinement', title: `Landlock ABI ${c.abi}` }, c.mode);
  if (c.reason === 'starts no processes') return null;
  return h('div', { class: 'help confinement unconfined', title: c.required ? 'command tools refuse to run (required)'
    : 'command tools run unconfined' }, `unconfined (${c.reason})`);
}

export function metric(values, scale, text, label) {
  return h('div', { class: 'metric' }, sparkline(values, { ...scale, label }), h('span', { class: 'value' }, text));
}
