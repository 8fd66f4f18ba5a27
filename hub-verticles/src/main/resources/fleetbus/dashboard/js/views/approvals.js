// Approvals: pending tier-3 calls (who, where, what exactly, time left) with Approve / Deny and a
// reason; decided ones below. The hub enforces who may decide; buttons only say so early: no Approve on one's own
// request (four eyes: the hub refuses it unless approvals.allowSelfApproval is on).
import { h, ago, countdown, stamp } from '../dom.js';
import { mayApprove } from '../auth.js';

const enc = encodeURIComponent;

export function approvalsView(live, api, who) {
  const pendingList = h('div', { id: 'pending-approvals' });
  const decidedRows = h('tbody');
  const element = h('div', {},
    h('div', { class: 'card' }, h('h2', {}, 'Waiting for a decision'),
      mayApprove(who) ? null : h('p', { class: 'muted' }, `You (${who.subject}) may look but not decide: that needs the role approver.`),
      pendingList),
    h('div', { class: 'card' }, h('h2', {}, 'Decided'),
      h('table', { id: 'decided-approvals' },
        h('thead', {}, h('tr', {}, ['Status', 'Tool', 'Node', 'Requester', 'Decided by', 'Reason', 'When'].map((t) => h('th', {}, t)))),
        decidedRows)));
  const cards = new Map(); // approvalId → card; kept across refreshes so a typed reason survives

  live.onApprovals((all) => {
    const pending = all.filter((a) => a.status === 'pending').sort((a, b) => a.requestedAt - b.requestedAt);
    for (const id of [...cards.keys()]) {
      if (!pending.some((a) => a.approvalId === id)) cards.delete(id);
    }
    pendingList.replaceChildren(...(pending.length ? pending.map((a) => cards.get(a.approvalId) || card(a))
      : [h('p', { class: 'muted' }, 'Nothing is waiting for approval.')]));
    const decided = all.filter((a) => a.status !== 'pending').sort((a, b) => (b.decidedAt || 0) - (a.decidedAt || 0));
    decidedRows.replaceChildren(...decided.slice(0, 50).map((a) => h('tr', { 'data-approval': a.approvalId },
      h('td', { class: `status-${a.status}` }, a.status),
      h('td', { class: 'mono' }, a.tool),
      h('td', { class: 'mono' }, a.nodeId || nodesOf(a)),
      h('td', {}, a.requester),
      h('td', {}, a.decidedBy || '—'),
      h('td', {}, a.reason || ''),
      h('td', { title: a.decidedAt ? stamp(a.decidedAt) : '' }, ago(a.decidedAt)))));
  });
  setInterval(() => cards.forEach((c) => c.tick()), 1000);

  function card(a) {
    const clock = h('span', { class: 'countdown' });
    const reason = h('input', { type: 'text', placeholder: 'reason (optional for approve, shown to the requester)',
      'aria-label': 'reason' });
    const problem = h('p', { class: 'error', role: 'alert', hidden: true });
    const allowed = mayApprove(who);
    const own = a.requester === who.subject;
    const decide = async (decision, buttons) => {
      buttons.forEach((b) => { b.disabled = true; });
      problem.hidden = true;
      try {
        await api.post(`/api/v1/approvals/${enc(a.approvalId)}/${decision}`, reason.value ? { reason: reason.value } : {});
        live.refreshApprovals();
      } catch (e) {
        problem.textContent = `${e.code}: ${e.message}`;
        problem.hidden = false;
        buttons.forEach((b) => { b.disabled = false; });
      }
    };
    const deny = h('button', { class: 'deny', disabled: !allowed }, 'Deny');
    // one's own request: no Approve button, and why (the hub would refuse it)
    const approve = own ? null : h('button', { class: 'approve', disabled: !allowed }, 'Approve');
    const buttons = [approve, deny].filter(Boolean);
    if (approve) approve.addEventListener('click', () => decide('approve', buttons));
    deny.addEventListener('click', () => decide('deny', buttons));
    const el = h('div', { class: 'card approval', 'data-approval': a.approvalId },
      h('header', {},
        h('span', { class: 'tool' }, a.tool),
        h('span', {}, 'on ', h('strong', { class: 'mono' }, a.nodeId || nodesOf(a))),
        h('span', { class: 'muted', title: stamp(a.requestedAt) }, `asked by ${a.requester} ${ago(a.requestedAt)}`),
        clock),
      summary(a.summary),
      own ? h('p', { class: 'own-request' }, 'You asked for this: another approver must decide.'
        + (allowed ? ' You may still deny it (or cancel the call) to withdraw it.' : '')) : null,
      h('div', { class: 'actions' }, reason, approve, deny),
      problem);
    el.tick = () => {
      clock.textContent = countdown(a.expiresAt);
    };
    el.tick();
    cards.set(a.approvalId, el);
    return el;
  }

  return { element, shown: () => live.refreshApprovals() };
}

function nodesOf(a) {
  const nodes = a.selector && a.selector.nodes;
  return Array.isArray(nodes) ? nodes.join(', ') : 'selected nodes';
}

/** The hub's summary: the command line or script, or a unified diff for file edits (coloured by line). */
function summary(text) {
  const lines = String(text || '').split('\n');
  return h('pre', { class: 'summary' }, lines.map((line) => {
    const kind = line.startsWith('@@') ? 'hunk' : line.startsWith('+') && !line.startsWith('+++') ? 'add'
      : line.startsWith('-') && !line.startsWith('---') ? 'del' : null;
    return kind ? h('span', { class: kind }, line) : `${line}\n`;
  }));
}
