// Audit: the hub's append-only trail, filtered, with the result of checking its hash chain. A record of a call
// links to the call's output (#call/<id>).
import { h, ago, stamp } from '../dom.js';

const enc = encodeURIComponent;

export function auditView(api) {
  const inputs = {
    node: h('input', { type: 'text', id: 'audit-node', placeholder: 'node id' }),
    tool: h('input', { type: 'text', id: 'audit-tool', placeholder: 'tool' }),
    principal: h('input', { type: 'text', id: 'audit-principal', placeholder: 'who' }),
    outcome: h('select', { id: 'audit-outcome' }, ['', 'ok', 'error', 'cancelled', 'denied', 'expired', 'refused']
      .map((v) => h('option', { value: v }, v || 'any'))),
    since: h('input', { type: 'datetime-local', id: 'audit-since' }),
  };
  const chain = h('p', { class: 'chain', id: 'audit-chain' });
  const rows = h('tbody');
  const note = h('p', { class: 'muted', id: 'audit-note' });
  const apply = h('button', { class: 'primary', type: 'submit' }, 'Apply');
  const filters = h('form', { class: 'filters', id: 'audit-filters' },
    Object.entries(inputs).map(([name, input]) => h('div', {}, h('label', { for: input.id }, name), input)), apply);
  const table = h('table', { id: 'audit-table' },
    h('thead', {}, h('tr', {}, ['#', 'When', 'Who', 'Node', 'Tool', 'Tier', 'Decision', 'Outcome', 'ms', 'Arguments (masked)', 'Call']
      .map((t) => h('th', {}, t)))),
    rows);
  const element = h('div', { class: 'card' }, h('h2', {}, 'Audit trail'), chain, filters, note, table);
  let loaded = false;

  filters.addEventListener('submit', (ev) => {
    ev.preventDefault();
    load();
  });

  async function load() {
    loaded = true;
    const q = new URLSearchParams();
    for (const key of ['node', 'tool', 'principal', 'outcome']) {
      if (inputs[key].value.trim()) q.set(key, inputs[key].value.trim());
    }
    if (inputs.since.value) q.set('since', String(new Date(inputs.since.value).getTime()));
    q.set('limit', '200');
    try {
      const [records, verify] = await Promise.all([api.get(`/api/v1/audit?${q}`), api.get('/api/v1/audit/verify')]);
      showChain(verify.body);
      filters.hidden = false;
      const list = records.body.records || [];
      note.textContent = `${list.length} record${list.length === 1 ? '' : 's'}${list.length >= 200 ? ' (the newest 200; narrow the filters)' : ''}`;
      rows.replaceChildren(...list.map(row));
      table.hidden = false;
    } catch (e) {
      table.hidden = true;
      rows.replaceChildren();
      if (e.status === 404) {
        filters.hidden = true;
        chain.className = 'unavailable';
        chain.textContent = 'Audit is not available on this hub (it has no /api/v1/audit).';
        note.textContent = '';
      } else {
        chain.className = 'chain broken';
        chain.textContent = e.status === 403 ? `Not allowed: ${e.message}` : `Cannot read the audit trail: ${e.message}`;
      }
    }
  }

  function showChain(v) {
    if (v.ok) {
      chain.className = 'chain ok';
      chain.textContent = `✓ hash chain verified: ${v.records} records, intact${v.head ? ` (head ${String(v.head).slice(0, 12)}…)` : ''}`;
    } else {
      const at = v.firstBroken || {};
      chain.className = 'chain broken';
      chain.textContent = `✗ hash chain broken at record #${at.seq}: ${at.reason || 'unknown reason'} (${v.records} records)`;
    }
  }

  return { element, shown: () => { if (!loaded) load(); } };
}

// a cancel is someone's choice, not a failure: shown apart from errors
const OUTCOME_CLASS = { ok: 'status-approved', cancelled: 'status-cancelled' };

/** "approved by alice", or the decision alone (auto, refused …). */
export function decisionOf(r) {
  return r.decision === 'auto' || !r.decider ? r.decision || '' : `${r.decision} by ${r.decider}`;
}

export function outcomeCell(r) {
  return h('td', { class: `outcome ${OUTCOME_CLASS[r.outcome] || 'status-denied'}` }, r.code ? `${r.outcome} ${r.code}` : r.outcome);
}

/** The moment as a date and time, how long ago underneath. */
export function whenCell(ms) {
  return h('td', { class: 'when', title: new Date(ms).toISOString() }, stamp(ms), h('div', { class: 'help' }, ago(ms)));
}

/** A link to the call's record and output, for records of calls. */
export function outputLink(r) {
  return r.callId ? h('a', { href: `#call/${enc(r.callId)}`, class: 'call-link', title: `call ${r.callId}` }, 'output') : '';
}

function row(r) {
  const args = typeof r.args === 'string' ? r.args : r.args ? JSON.stringify(r.args) : '';
  return h('tr', { 'data-call': r.callId || null },
    h('td', { class: 'mono' }, r.seq),
    whenCell(r.at),
    h('td', {}, r.principal),
    h('td', { class: 'mono' }, r.nodeId ? h('a', { href: `#node/${enc(r.nodeId)}` }, r.nodeId) : ''),
    h('td', { class: 'mono' }, r.tool),
    h('td', {}, r.tier),
    h('td', {}, decisionOf(r)),
    outcomeCell(r),
    h('td', {}, r.durationMs),
    h('td', { class: 'mono', title: args }, args.length > 80 ? `${args.slice(0, 80)}…` : args),
    h('td', {}, outputLink(r)));
}
