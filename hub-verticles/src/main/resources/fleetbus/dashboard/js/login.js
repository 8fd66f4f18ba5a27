// Sign-in at the organisation's issuer. The hub is the OAuth client: /login/start sends this browser to the issuer
// (code + PKCE), the issuer sends it back to /login/callback, and the page then collects the outcome once with
// POST /login/session (an HttpOnly cookie names this browser's attempt): a token, or why the hub refused it. No
// token or code ever sits in this page's address.
import { h } from './dom.js';

/** The outcome of a sign-in that just came back from the issuer: {token, subject, roles}, {error}, or null. */
export async function collectSignIn() {
  try {
    const res = await fetch('/login/session', { method: 'POST', credentials: 'same-origin' });
    if (res.status === 204) return null;
    const body = await res.json();
    if (res.ok && body.token) return body;
    return { error: (body.error && body.error.message) || `sign-in refused (HTTP ${res.status})` };
  } catch (e) {
    return null; // a hub without the route, or unreachable: the token form still works
  }
}

/** "Sign in with <issuer>" for each issuer the hub offers; nothing when it offers none. */
export async function showIssuers(box, buttons) {
  let issuers = [];
  try {
    const res = await fetch('/login/options');
    if (res.ok) issuers = (await res.json()).issuers || [];
  } catch (e) {
    issuers = [];
  }
  buttons.replaceChildren(...issuers.map((i) => h('a', {
    class: 'button primary', id: `sign-in-with-${i.id}`, href: `/login/start?issuer=${encodeURIComponent(i.id)}`,
  }, `Sign in with ${i.name}`)));
  box.hidden = issuers.length === 0;
}
