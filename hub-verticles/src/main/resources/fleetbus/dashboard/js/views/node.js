// A node's page (#node/<id>): what the hub knows (GET /api/v1/nodes/{id}: state, tier, labels, live metrics, tools,
// lifecycle), what the machine says of itself (get_system_info and get_network_info, tier 1, run through the API
// like any call: audited, once per page visit or Refresh), and the node's recent calls from the audit trail.
import { h, ago, stamp, when, uptime } from '../dom.js';
import { confinement, metric, SCALES } from './nodes.js';
import { decisionOf, outcomeCell, outputLink, whenCell } from './audit.js';

const enc = encodeURIComponent;
const gb = (mb) => (mb / 1024).toFixed(1);

export function nodeView(live, api, history, catalog) {
  const title = h('h2', { id: 'node-title' });
  const facts = h('dl', { class: 'facts', id: 'node-facts' });
  const machine = h('dl', { class: 'facts', id: 'node-machine' });
  const machineNote = h('p', { class: 'muted', id: 'node-machine-note' });
  const tools = h('div', { id: 'node-tools' });
  const lifecycle = h('tbody');
  const calls = h('tbody');
  const callsNote = h('p', { class: 'muted', id: 'node-calls-note' });
  const problem = h('p', { class: 'error', role: 'alert', id: 'node-problem', hidden: true });
  const refresh = h('button', { type: 'button', id: 'node-refresh' }, 'Refresh');
  const element = h('div', { id: 'node-page' },
    h('p', {}, h('a', { href: '#nodes', class: 'back' }, '← all nodes')),
    h('div', { class: 'card' }, h('header', { class: 'page-head' }, title, refresh), problem, facts),
    h('div', { class: 'card' }, h('h2', {}, 'Machine'), machineNote, machine),
    h('div', { class: 'card' }, h('h2', {}, 'Recent calls'), callsNote,
      h('table', { id: 'node-calls' }, h('thead', {}, h('tr', {},
        ['When', 'Who', 'Tool', 'Decision', 'Outcome', 'ms', ''].map((t) => h('th', {}, t)))), calls)),
    h('div', { class: 'card' }, h('h2', {}, 'Tools'), tools),
    h('div', { class: 'card' }, h('h2', {}, 'Lifecycle'),
      h('table', { id: 'node-lifecycle' }, h('thead', {}, h('tr', {}, ['When', 'Event', 'Reason'].map((t) => h('th', {}, t)))),
        lifecycle)));

  let nodeId = null;
  let node = null;
  const asked = new Map(); // nodeId → the machine's own answers, asked once per visit

  live.onNodes((list) => {
    const fresh = nodeId && list.find((n) => n.nodeId === nodeId);
    if (fresh && node) {
      const changed = fresh.online !== node.online;
      node = { ...node, ...fresh };
      showFacts();
      if (changed) load(false);
    }
  });
  live.onHeartbeat((hb) => { if (node && hb.nodeId === nodeId) showFacts(); });
  refresh.addEventListener('click', () => load(true));

  async function load(again) {
    const id = nodeId;
    problem.hidden = true;
    try {
      const { body } = await api.get(`/api/v1/nodes/${enc(id)}`);
      if (id !== nodeId) return;
      node = body;
    } catch (e) {
      node = null;
      title.textContent = id;
      facts.replaceChildren();
      problem.textContent = e.status === 404 ? `The hub knows no node "${id}".` : `Cannot read node ${id}: ${e.message}`;
      problem.hidden = false;
      return;
    }
    showFacts();
    showTools();
    showLifecycle();
    loadCalls(id);
    if (again) asked.delete(id);
    if (!asked.has(id)) asked.set(id, askMachine(node));
    showMachine(await asked.get(id), id);
  }

  function showFacts() {
    const n = node;
    const m = n.metrics;
    const series = history.series(n.nodeId);
    title.replaceChildren(h('span', { class: 'mono' }, n.nodeId), ' ',
      h('span', { class: `state ${n.online ? 'online' : 'offline'}`, id: 'node-state' }, h('span', { class: 'dot' }),
        n.online ? 'online' : `offline, last seen ${ago(n.lastSeen)}`));
    const labels = Object.entries(n.labels || {}).map(([k, v]) => h('span', { class: 'chip' }, `${k}=${v}`));
    facts.replaceChildren(...pairs([
      ['Tier', [h('span', { class: `tier tier-${n.capabilityTier}` }, n.capabilityTier), confinement(n.confinement)]],
      ['Platform', `${n.platform}${n.agentVersion ? ` · agent ${n.agentVersion}` : ''}`],
      ['Labels', labels.length ? labels : '—'],
      ['Uptime', m && m.uptimeSeconds != null ? uptime(m.uptimeSeconds) : '—', 'node-uptime'],
      ['Load', m && m.loadAverage != null ? m.loadAverage.toFixed(2) : '—', 'node-load'],
      ['CPU', metric(series.cpu, SCALES.cpu, m ? `${m.cpuPercent.toFixed(1)} %` : '—', 'CPU %')],
      ['Memory used', metric(series.mem, SCALES.mem, m ? `${gb(m.memoryMb)} / ${gb(m.memoryTotalMb)} GB` : '—', 'memory used %')],
      ['Disk free', metric(series.disk, SCALES.disk, m ? `${gb(m.diskFreeMb)} GB` : '—', 'disk free GB')],
      ['Last heartbeat', when(n.lastHeartbeat)],
      ['First seen', when(n.firstSeen)],
    ]));
  }

  function showTools() {
    const served = new Set(node.tools || []);
    const known = catalog.filter((t) => served.has(t.name));
    const unknown = [...served].filter((name) => !known.some((t) => t.name === name)).sort();
    const byTier = [1, 2, 3].map((tier) => [tier, known.filter((t) => t.tier === tier).map((t) => t.name).sort()]);
    tools.replaceChildren(
      h('p', { class: 'muted' }, `${served.size} tools served by this node (the ones your roles may call are in the Console)`),
      ...byTier.filter(([, names]) => names.length).map(([tier, names]) => h('div', { class: 'tool-tier' },
        h('span', { class: 'help' }, `tier ${tier}`),
        names.map((name) => h('span', { class: `chip tool tier${tier}`, 'data-tool': name }, name)))),
      ...(unknown.length ? [h('div', { class: 'tool-tier' }, h('span', { class: 'help' }, 'not for your roles'),
        unknown.map((name) => h('span', { class: 'chip tool', 'data-tool': name }, name)))] : []));
  }

  function showLifecycle() {
    const steps = [...(node.lifecycle || [])].reverse();
    lifecycle.replaceChildren(...(steps.length ? steps.map((e) => h('tr', {},
      h('td', { class: 'when' }, when(e.at)), h('td', {}, e.event), h('td', {}, e.reason || '')))
      : [h('tr', {}, h('td', { colspan: 3, class: 'muted' }, 'Nothing recorded.'))]));
  }

  async function loadCalls(id) {
    try {
      const { body } = await api.get(`/api/v1/audit?node=${enc(id)}&limit=20`);
      if (id !== nodeId) return;
      const records = (body.records || []).filter((r) => r.tier > 0); // tier 0: enrollment, rekey (not calls)
      callsNote.textContent = records.length
        ? `the last ${records.length === 1 ? 'call' : `${records.length} calls`} you may see (from the audit trail, newest first)`
        : 'No calls to this node that you may see.';
      calls.replaceChildren(...records.map(callRow));
    } catch (e) {
      callsNote.textContent = e.status === 404 ? 'This hub has no audit trail.' : `Cannot read the audit trail: ${e.message}`;
      calls.replaceChildren();
    }
  }

  function showMachine(info, id) {
    if (id !== nodeId) return;
    machineNote.textContent = info.note;
    machine.replaceChildren(...pairs(info.pairs));
  }

  return {
    element,
    shown: (id) => {
      const changed = id !== nodeId;
      nodeId = id;
      if (changed) {
        node = null;
        title.textContent = id;
        for (const el of [facts, machine, tools, lifecycle, calls]) el.replaceChildren();
        machineNote.textContent = 'asking the node…';
        callsNote.textContent = '';
      }
      document.title = `fleetbus · ${id}`;
      load(false);
    },
  };

  /** Host name and addresses from the node itself (tier-1 tools), or why not. */
  async function askMachine(n) {
    const served = new Set(n.tools || []);
    if (!n.online) {
      return { note: 'The node is offline: its host name and addresses come from the node itself.', pairs: [] };
    }
    const run = (tool) => (served.has(tool)
      ? api.post(`/api/v1/nodes/${enc(n.nodeId)}/tools/${tool}`, {}).then((r) => r.body.data, (e) => ({ failed: e.message }))
      : Promise.resolve({ failed: `this node does not serve ${tool}` }));
    const [sys, net] = await Promise.all([run('get_system_info'), run('get_network_info')]);
    const out = [];
    out.push(['Host name', sys.hostname || net.hostname || `unknown (${sys.failed || 'not reported'})`, 'node-hostname']);
    if (!sys.failed) {
      if (sys.os) out.push(['Operating system', `${sys.os.family || ''} ${sys.os.version || ''} (${sys.os.build || ''})`.trim()]);
      if (sys.cpu) out.push(['CPU', `${sys.cpu.model || '?'} · ${sys.cpu.logicalCores ?? '?'} logical cores`]);
      if (sys.memory) out.push(['Memory', `${gb(sys.memory.totalMb)} GB`]);
      if (sys.gpus && sys.gpus.length) out.push(['GPUs', sys.gpus.map((g) => g.name || g.model || JSON.stringify(g)).join(', ')]);
    }
    out.push(['Addresses', net.failed ? `unknown (${net.failed})` : addresses(net), 'node-addresses']);
    if (!net.failed && net.defaultGateway) out.push(['Gateway', net.defaultGateway]);
    return { note: `as the node said at ${stamp(Date.now())} (get_system_info, get_network_info: audited calls; Refresh asks again)`,
      pairs: out };
  }
}

function addresses(net) {
  const lines = (net.interfaces || []).map((i) => {
    const ips = [...(i.ipv4 || []), ...(i.ipv6 || [])].map((a) => `${a.address}/${a.prefixLength}`);
    return ips.length ? h('div', { class: 'mono' }, `${i.name}: ${ips.join(', ')}`) : null;
  }).filter(Boolean);
  return lines.length ? lines : '—';
}

function pairs(list) {
  return list.flatMap(([k, v, id]) => [h('dt', {}, k), h('dd', id ? { id } : {}, v)]);
}

function callRow(r) {
  return h('tr', { 'data-call': r.callId || null },
    whenCell(r.at),
    h('td', {}, r.principal),
    h('td', { class: 'mono' }, r.tool),
    h('td', {}, decisionOf(r)),
    outcomeCell(r),
    h('td', {}, r.durationMs),
    h('td', {}, outputLink(r)));
}
