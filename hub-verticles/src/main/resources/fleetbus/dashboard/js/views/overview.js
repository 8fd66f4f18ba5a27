// Overview: the fleet at a glance. How many nodes are online, what waits for a person, what failed lately, and
// whether every node can confine the processes it starts. Each part links to the page with the details.
import { h, ago, stamp } from '../dom.js';

const enc = encodeURIComponent;

export function overviewView(live, api) {
  const nodes = h('div', { id: 'overview-nodes', class: 'figure' });
  const approvals = h('div', { id: 'overview-approvals', class: 'figure' });
  const confinement = h('div', { id: 'overview-confinement' });
  const failures = h('div', { id: 'overview-failures' });
  const element = h('div', { id: 'overview' },
    h('div', { class: 'figures' },
      h('a', { class: 'card figure-card', href: '#nodes' }, h('h2', {}, 'Nodes'), nodes),
      h('a', { class: 'card figure-card', href: '#approvals' }, h('h2', {}, 'Waiting for approval'), approvals)),
    h('div', { class: 'card' }, h('h2', {}, 'Confinement'), confinement),
    h('div', { class: 'card' }, h('h2', {}, 'Recent failures'), failures));

  live.onNodes((list) => {
    const online = list.filter((n) => n.online).length;
    nodes.replaceChildren(h('span', { class: 'big ok' }, String(online)), ' online · ',
      h('span', { class: list.length > online ? 'big bad' : 'big' }, String(list.length - online)), ' offline');
    confinement.replaceChildren(...confinementOf(list));
  });
  live.onApprovals((all) => {
    const pending = all.filter((a) => a.status === 'pending');
    approvals.replaceChildren(h('span', { class: pending.length ? 'big warn' : 'big' }, String(pending.length)),
      pending.length === 1 ? ' call' : ' calls');
  });

  async function loadFailures() {
    try {
      const { body } = await api.get('/api/v1/audit?outcome=error&limit=5');
      const list = body.records || [];
      failures.replaceChildren(list.length === 0 ? h('p', { class: 'muted' }, 'No call failed lately.')
        : h('ul', { class: 'failures' }, list.map((r) => h('li', {},
          h('span', { class: 'when', title: stamp(r.at) }, ago(r.at)), ' ',
          h('span', { class: 'mono' }, r.tool), ' on ', h('span', { class: 'mono' }, r.nodeId || '—'),
          ` by ${r.principal}: ${r.outcome}${r.code ? ` ${r.code}` : ''} `,
          r.callId ? h('a', { href: `#call/${enc(r.callId)}` }, 'output') : null))));
    } catch (e) {
      failures.replaceChildren(h('p', { class: 'unavailable' }, `The audit trail is not available: ${e.message}`));
    }
  }
  return { element, shown: () => loadFailures() };
}

/** Nodes by how their processes are confined; any node that would run commands unconfined is named in red. */
function confinementOf(list) {
  const modes = new Map();
  for (const n of list) {
    const mode = n.confinement ? n.confinement.mode : 'not reported';
    modes.set(mode, (modes.get(mode) || 0) + 1);
  }
  const unconfined = list.filter((n) => n.confinement && n.confinement.mode === 'none'
    && n.confinement.reason !== 'starts no processes');
  return [
    h('p', {}, [...modes.entries()].map(([mode, count]) => h('span', { class: 'chip' }, `${mode}: ${count}`))),
    unconfined.length === 0 ? h('p', { class: 'muted' }, 'Every reporting node confines the processes it starts.')
      : h('p', { class: 'confinement unconfined' }, 'Unconfined: ', unconfined.map((n, i) => [i ? ', ' : '',
        h('a', { href: `#node/${enc(n.nodeId)}` }, n.nodeId), n.confinement.reason ? ` (${n.confinement.reason})` : ''])),
  ];
}
