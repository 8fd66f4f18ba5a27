// The dashboard's sign-in at the test OpenID Provider (idp.mjs), spoken as browsers speak it (cookie jars, redirects
// not followed), against a hub whose auth.issuers[0].dashboard names the client "fleetbus-dashboard". Driven by
// io.fleetbus.hub.dashboard.DashboardLoginTest. env: HUB_URL; MODE "checks" (everything below) or "unbound" (the hub
// runs with the fault switch loginUnbound: the planted sign-in of the login CSRF check must then succeed).
import assert from 'node:assert/strict';
import { signInRedirect } from './lib/oidc.mjs';

const hub = process.env.HUB_URL;
const callback = `${hub}/login/callback`;

/** A browser: its own cookie jar for the hub and the issuer. */
class Browser {
  cookies = new Map();

  async go(url, init = {}) {
    const headers = { ...(init.headers ?? {}), cookie: [...this.cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
    const res = await fetch(url, { ...init, headers, redirect: 'manual' });
    this.setCookies = res.headers.getSetCookie();
    for (const c of this.setCookies) {
      const [pair] = c.split(';');
      const i = pair.indexOf('=');
      if (/max-age=0/i.test(c)) this.cookies.delete(pair.slice(0, i));
      else this.cookies.set(pair.slice(0, i), pair.slice(i + 1));
    }
    return res;
  }

  /** GET /login/start: the hub sends this browser to the issuer. */
  async start() {
    const res = await this.go(`${hub}/login/start?issuer=0`);
    assert.equal(res.status, 303, 'the sign-in starts with a redirect to the issuer');
    const cookie = this.setCookies.find((c) => c.startsWith('fleetbus_login='));
    assert.ok(cookie && /HttpOnly/i.test(cookie) && /SameSite=Lax/i.test(cookie) && /Path=\/login/i.test(cookie),
      `the attempt is bound to this browser by an HttpOnly, SameSite=Lax cookie: ${cookie}`);
    return res.headers.get('location');
  }

  /** The issuer's answer opened in this browser, then what the page collects. */
  async finish(redirect) {
    const back = await this.go(redirect);
    assert.equal(back.status, 303);
    assert.equal(back.headers.get('location'), `${hub}/`, 'back to the dashboard, nothing in the address');
    const res = await this.go(`${hub}/login/session`, { method: 'POST', headers: { origin: hub } });
    return { status: res.status, body: res.status === 204 ? null : await res.json() };
  }
}

/** A person signs in at the issuer in this browser (login and consent pages), up to the redirect back. */
async function atIssuer(browser, login) {
  return signInRedirect(await browser.start(), login, callback);
}

if (process.env.MODE === 'unbound') {
  const attacker = new Browser();
  const planted = await atIssuer(attacker, 'bob');
  const victim = new Browser();
  await victim.start();
  const got = await victim.finish(planted);
  assert.equal(got.status, 200, `with loginUnbound the planted sign-in goes through: ${JSON.stringify(got.body)}`);
  assert.equal(got.body.subject, 'bob', 'the victim is signed in as the attacker');
  console.log('dashboard-login: the planted sign-in signed the victim in as bob (switch off)');
  process.exit(0);
}

// the page asks which issuers to offer
const options = await (await fetch(`${hub}/login/options`)).json();
assert.deepEqual(options.issuers, [{ id: 0, name: 'Test IdP' }]);

// the authorization request: code, PKCE S256, state, nonce, the resource, our redirect URI; no token anywhere
const alice = new Browser();
const authorize = new URL(await alice.start());
const q = authorize.searchParams;
assert.equal(q.get('response_type'), 'code');
assert.equal(q.get('code_challenge_method'), 'S256');
assert.match(q.get('code_challenge'), /^[A-Za-z0-9_-]{43}$/);
assert.match(q.get('state'), /^[A-Za-z0-9_-]{43}$/);
assert.match(q.get('nonce'), /^[A-Za-z0-9_-]{43}$/);
assert.equal(q.get('client_id'), 'fleetbus-dashboard');
assert.equal(q.get('redirect_uri'), callback);
assert.equal(q.get('resource'), 'https://fleet.test/mcp');
assert.deepEqual(q.get('scope').split(' '), ['openid', 'fleet']);
console.log('authorization request: code + PKCE S256, state, nonce, resource');

// alice (fleet-admins) signs in: the token the page gets works, with her mapped roles
const aliceBack = await signInRedirect(authorize.href, 'alice', callback);
const back = await alice.go(aliceBack);
assert.equal(back.status, 303);
// a page of another site cannot collect it (and does not use it up)
const foreign = await alice.go(`${hub}/login/session`, { method: 'POST', headers: { origin: 'http://evil.example' } });
assert.equal(foreign.status, 403, 'another origin is refused');
const collected = await alice.go(`${hub}/login/session`, { method: 'POST', headers: { origin: hub } });
const signedIn = { status: collected.status, body: await collected.json() };
assert.equal(signedIn.status, 200, JSON.stringify(signedIn.body));
assert.equal(signedIn.body.subject, 'alice');
assert.deepEqual(signedIn.body.roles, ['admin', 'approver']);
const revocations = await fetch(`${hub}/api/v1/revocations`, { headers: { authorization: `Bearer ${signedIn.body.token}` } });
assert.equal(revocations.status, 200, 'her token is an admin\'s at the hub');
const again = await alice.go(`${hub}/login/session`, { method: 'POST' });
assert.equal(again.status, 204, 'the token is handed over once');
console.log('alice signed in: admin, approver');

// the same redirect opened again, in a new attempt of the same browser (a replayed code): refused
await alice.start();
const replayed = await alice.finish(aliceBack);
assert.equal(replayed.status, 401);
assert.match(replayed.body.error.message, /not started in this browser/);
console.log(`replayed: ${replayed.body.error.message}`);

// carol's groups map to no role: refused, and told why
const carol = new Browser();
const carolGot = await carol.finish(await atIssuer(carol, 'carol'));
assert.equal(carolGot.status, 401);
assert.match(carolGot.body.error.message, /'carol' has no fleetbus role: their groups \[marketing\] map to none \(auth\.issuers\[\]\.roles\)/);
console.log(`carol refused: ${carolGot.body.error.message}`);

// login CSRF: the attacker's own sign-in, planted in the victim's browser, signs nobody in
const attacker = new Browser();
const planted = await atIssuer(attacker, 'bob');
const victim = new Browser();
await victim.start();
const victimGot = await victim.finish(planted);
assert.equal(victimGot.status, 401, JSON.stringify(victimGot.body));
assert.match(victimGot.body.error.message, /not started in this browser/);
const stranger = new Browser();
assert.equal((await stranger.finish(planted)).status, 204, 'a browser that started nothing gets nothing');
console.log(`planted sign-in refused: ${victimGot.body.error.message}`);

// the issuer refuses (the person cancels): the page is told so
const cancelled = new Browser();
const state = new URL(await cancelled.start()).searchParams.get('state');
const refusal = await cancelled.finish(`${callback}?error=access_denied&error_description=${encodeURIComponent('End-User aborted interaction')}&state=${state}`);
assert.equal(refusal.status, 401);
assert.match(refusal.body.error.message, /the issuer did not sign you in: access_denied \(End-User aborted interaction\)/);
console.log('dashboard-login: all checks passed');
