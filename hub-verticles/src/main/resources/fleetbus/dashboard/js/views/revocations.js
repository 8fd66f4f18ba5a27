// Revocations (admins only): the tokens and people whose tokens the fleet refuses, and a form to revoke a token id
// (jti) or everything a subject holds now. It calls the same API as `scripts/fleetbus revoke`.
import { h, stamp, ago } from '../dom.js';

export function revocationsView(api) {
  const kind = h('select', { id: 'revoke-kind' },
    h('option', { value: 'subject' }, 'every token of a subject'), h('option', { value: 'tokenId' }, 'one token id (jti)'));
  const value = h('input', { type: 'text', id: 'revoke-value', placeholder: 'alice, or a token id', required: true,
    autocomplete: 'off', spellcheck: 'false' });
  const state = h('p', { id: 'revoke-state', role: 'status' });
  const form = h('form', { class: 'revoke-form', id: 'revoke-form' },
    h('div', {}, h('label', { for: 'revoke-kind' }, 'revoke'), kind),
    h('div', {}, h('label', { for: 'revoke-value' }, 'which'), value),
    h('button', { class: 'primary', type: 'submit' }, 'Revoke'));
  const rows = h('tbody');
  const note = h('p', { class: 'muted', id: 'revocations-note' });
  const table = h('table', { id: 'revocations-table' },
    h('thead', {}, h('tr', {}, ['Revoked', 'Token id / subject', 'When', 'By', 'Kept until'].map((t) => h('th', {}, t)))),
    rows);
  const element = h('div', { class: 'card' }, h('h2', {}, 'Revoked tokens'),
    h('p', { class: 'help' }, 'A revoked token is refused by every hub within seconds, and its open connections are'
      + ' closed. Revoking a subject covers the tokens they hold now; they can sign in again afterwards.'),
    form, state, note, table);

  form.addEventListener('submit', async (ev) => {
    ev.preventDefault();
    const which = value.value.trim();
    if (!which) return;
    state.className = '';
    state.textContent = 'revoking…';
    try {
      await api.post('/api/v1/revocations', { [kind.value]: which });
      state.className = 'status-approved';
      state.textContent = `Revoked: ${kind.value === 'subject' ? `every token of ${which}` : `token ${which}`}.`;
      value.value = '';
      await load();
    } catch (e) {
      state.className = 'error';
      state.textContent = `Not revoked: ${e.message}`;
    }
  });

  async function load() {
    try {
      const list = (await api.get('/api/v1/revocations')).body.revocations || [];
      note.textContent = `${list.length} revocation${list.length === 1 ? '' : 's'} in force`;
      rows.replaceChildren(...list.sort((a, b) => b.revokedAt - a.revokedAt).map(row));
    } catch (e) {
      rows.replaceChildren();
      note.className = 'error';
      note.textContent = `Cannot read the revocations: ${e.message}`;
    }
  }

  return { element, shown: () => load() };
}

function row(r) {
  return h('tr', { 'data-kind': r.kind },
    h('td', {}, r.kind === 'subject' ? 'subject' : 'token'),
    h('td', { class: 'mono' }, r.kind === 'subject' ? r.subject : r.tokenId),
    h('td', { class: 'when' }, stamp(r.revokedAt), h('div', { class: 'help' }, ago(r.revokedAt))),
    h('td', {}, r.by || ''),
    h('td', {}, stamp(r.keepUntil)));
}
