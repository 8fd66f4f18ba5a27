// Logs a user in at the test OpenID Provider (idp.mjs) as a person would, through its login and consent pages:
// authorization code with PKCE for client "fleetbus-test", the token asked for RESOURCE (RFC 8707). Prints the access
// token only. Env: ISSUER, LOGIN (alice, bob, carol), RESOURCE.
import { createHash, randomBytes } from 'node:crypto';

const { ISSUER, LOGIN, RESOURCE } = process.env;
const redirect = 'http://127.0.0.1/cb';
const verifier = randomBytes(32).toString('base64url');
const challenge = createHash('sha256').update(verifier).digest('base64url');
const cookies = new Map();

async function go(url, init = {}) {
  const headers = { ...(init.headers ?? {}), cookie: [...cookies].map(([k, v]) => `${k}=${v}`).join('; ') };
  const res = await fetch(new URL(url, ISSUER), { ...init, headers, redirect: 'manual' });
  for (const c of res.headers.getSetCookie()) {
    const [pair] = c.split(';');
    const i = pair.indexOf('=');
    cookies.set(pair.slice(0, i), pair.slice(i + 1));
  }
  return res;
}

/** Follows redirects until the client's redirect URI (answers its code) or a page (answers its URL). */
async function follow(res, from) {
  let url = from;
  while (res.status >= 300 && res.status < 400) {
    url = new URL(res.headers.get('location'), url).href;
    if (url.startsWith(redirect)) return { code: new URL(url).searchParams.get('code'), url };
    res = await go(url);
  }
  if (res.status !== 200) throw new Error(`${url} answered ${res.status}: ${await res.text()}`);
  return { url };
}

const auth = new URL('/auth', ISSUER);
Object.entries({
  client_id: 'fleetbus-test', response_type: 'code', redirect_uri: redirect, scope: 'openid fleet', resource: RESOURCE,
  code_challenge: challenge, code_challenge_method: 'S256', state: randomBytes(8).toString('hex'),
}).forEach(([k, v]) => auth.searchParams.set(k, v));
let step = await follow(await go(auth.href), auth.href);
const form = (body) => ({ method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams(body).toString() });
step = await follow(await go(step.url, form({ prompt: 'login', login: LOGIN, password: 'any' })), step.url);
if (!step.code) step = await follow(await go(step.url, form({ prompt: 'consent' })), step.url);
if (!step.code) throw new Error(`no code after login and consent (at ${step.url})`);
const token = await go('/token', form({
  grant_type: 'authorization_code', code: step.code, redirect_uri: redirect, client_id: 'fleetbus-test',
  code_verifier: verifier, resource: RESOURCE,
}));
const body = await token.json();
if (!body.access_token) throw new Error(`token endpoint: ${JSON.stringify(body)}`);
console.log(body.access_token);
