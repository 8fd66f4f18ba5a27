// A call's page (#call/<id>, linked from the audit): its record as the hub holds it (GET /api/v1/calls/{id}):
// what ran (tool, node, the arguments as the audit keeps them, secrets masked), who asked, the decision, when it
// ran, and its outcome: output or error.
import { h, when } from '../dom.js';

const enc = encodeURIComponent;

export function callView(api) {
  const title = h('h2', { id: 'call-title' });
  const facts = h('dl', { class: 'facts', id: 'call-facts' });
  const state = h('p', { class: 'callstate', id: 'call-state' });
  const output = h('pre', { class: 'output', id: 'call-output', hidden: true });
  const result = h('pre', { class: 'result', id: 'call-result', hidden: true });
  const refresh = h('button', { type: 'button', id: 'call-refresh' }, 'Refresh');
  const args = h('span', { id: 'call-args-cell' });
  const element = h('div', { id: 'call-page' },
    h('p', {}, h('a', { href: '#audit', class: 'back' }, '← audit trail')),
    h('div', { class: 'card' }, h('header', { class: 'page-head' }, title, refresh), state, facts),
    h('div', { class: 'card' }, h('h2', {}, 'Output'), output, result));
  let callId = null;

  refresh.addEventListener('click', () => load());

  async function load() {
    const id = callId;
    let rec;
    try {
      rec = (await api.get(`/api/v1/calls/${enc(id)}`)).body;
    } catch (e) {
      // a call that failed is answered with its failure's status and still carries its record
      rec = e.body && e.body.callId ? e.body : null;
      if (!rec) {
        if (id !== callId) return;
        facts.replaceChildren();
        output.hidden = true;
        result.hidden = true;
        setState('error', e.status === 404
          ? 'The hubs hold no record of this call: it is not yours (viewers and operators see their own calls), it ran'
            + ' more than 24 h ago, or every hub has restarted since. Its audit record stays.'
          : `Cannot read the call: ${e.message}`);
        return;
      }
    }
    if (id !== callId) return;
    show(rec);
  }

  function show(r) {
    facts.replaceChildren(...[
      ['Tool', `${r.tool}${r.tier ? ` (tier ${r.tier})` : ''}`],
      ['Node', r.nodeId ? h('a', { href: `#node/${enc(r.nodeId)}`, class: 'mono' }, r.nodeId) : '—'],
      ['Arguments', args],
      ['Asked by', r.principal || '—'],
      ['Approval', r.approvalId ? h('span', { class: 'mono' }, r.approvalId) : 'none needed'],
      ['Asked', when(r.createdAt)],
      ['Finished', when(r.finishedAt)],
      ['Ran', r.finishedAt && r.durationMs != null ? `${r.durationMs} ms` : '—'],
    ].flatMap(([k, v]) => [h('dt', {}, k), h('dd', {}, v)]));
    loadArgs(r);
    const err = r.error;
    if (r.status === 'ok') setState('ok', 'ok');
    else if (r.status === 'cancelled') setState('cancelled', `cancelled · ${(r.data && r.data.message) || ''}`);
    else if (err) setState('error', `${err.code}: ${err.message}`);
    else setState('waiting', String(r.status || 'unknown').replace(/_/g, ' '));
    const data = r.data;
    output.replaceChildren();
    if (data && (typeof data.stdout === 'string' || typeof data.stderr === 'string') && (data.stdout || data.stderr)) {
      output.append(h('span', { class: 'stdout' }, data.stdout || ''));
      if (data.stderr) output.append(h('span', { class: 'stderr' }, data.stderr));
      output.hidden = false;
    } else {
      output.hidden = true;
    }
    result.textContent = data == null ? '' : JSON.stringify(data, null, 2);
    result.hidden = data == null;
  }

  /** The call's arguments from its audit record (masked there), found among that tool's recent records. */
  async function loadArgs(r) {
    args.replaceChildren('…');
    const q = new URLSearchParams({ tool: r.tool, principal: r.principal || '', limit: '200' });
    if (r.nodeId) q.set('node', r.nodeId);
    try {
      const found = ((await api.get(`/api/v1/audit?${q}`)).body.records || []).find((a) => a.callId === r.callId);
      args.replaceChildren(found && found.args ? h('code', { id: 'call-args' }, JSON.stringify(found.args))
        : h('span', { class: 'muted' }, 'not among the audit trail\'s recent records of this tool'));
    } catch (e) {
      args.replaceChildren(h('span', { class: 'unavailable' }, `the audit trail is not available: ${e.message}`));
    }
  }

  function setState(kind, text) {
    state.className = `callstate ${kind}`;
    state.textContent = text;
  }

  return {
    element,
    shown: (id) => {
      if (id !== callId) {
        callId = id;
        title.replaceChildren('Call ', h('span', { class: 'mono' }, id));
        facts.replaceChildren();
        output.hidden = true;
        result.hidden = true;
        setState('', 'reading the call…');
      }
      load();
    },
  };
}
