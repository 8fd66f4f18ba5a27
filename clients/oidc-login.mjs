// Logs a user in at the test OpenID Provider (idp.mjs) as a person would, through its login and consent pages:
// authorization code with PKCE for client "fleetbus-test", the token asked for RESOURCE (RFC 8707). Prints the access
// token only. Env: ISSUER, LOGIN (alice, bob, carol), RESOURCE.
import { createHash, randomBytes } from 'node:crypto';
import { signIn } from './lib/oidc.mjs';

const { ISSUER, LOGIN, RESOURCE } = process.env;
const redirect = 'http://127.0.0.1/cb';
const verifier = randomBytes(32).toString('base64url');
const auth = new URL('/auth', ISSUER);
Object.entries({
  client_id: 'fleetbus-test', response_type: 'code', redirect_uri: redirect, scope: 'openid fleet', resource: RESOURCE,
  code_challenge: createHash('sha256').update(verifier).digest('base64url'), code_challenge_method: 'S256',
  state: randomBytes(8).toString('hex'),
}).forEach(([k, v]) => auth.searchParams.set(k, v));
const code = await signIn(auth.href, LOGIN, redirect);
const res = await fetch(new URL('/token', ISSUER), {
  method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' },
  body: new URLSearchParams({ grant_type: 'authorization_code', code, redirect_uri: redirect, client_id: 'fleetbus-test',
    code_verifier: verifier, resource: RESOURCE }).toString(),
});
const body = await res.json();
if (!body.access_token) throw new Error(`token endpoint: ${JSON.stringify(body)}`);
console.log(body.access_token);
