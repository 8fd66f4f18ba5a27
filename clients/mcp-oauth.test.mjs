// The official MCP TypeScript SDK's OAuth client against a hub that trusts the test OpenID Provider (idp.mjs):
// /mcp answers 401 with WWW-Authenticate resource_metadata, the SDK reads the protected-resource metadata, discovers the
// issuer, registers itself there (dynamic client registration), sends the person to log in (authorization code + PKCE,
// the token asked for the hub's MCP resource, RFC 8707), exchanges the code and calls a tool. Env: FLEETBUS_URL, LOGIN.
import assert from 'node:assert/strict';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { UnauthorizedError } from '@modelcontextprotocol/sdk/client/auth.js';
import { signIn } from './lib/oidc.mjs';

const hub = new URL('/mcp', process.env.FLEETBUS_URL);
const redirectUrl = 'http://127.0.0.1/oauth/callback';
const saved = {};
const provider = {
  get redirectUrl() { return redirectUrl; },
  get clientMetadata() {
    return { client_name: 'fleetbus-oauth-ci', redirect_uris: [redirectUrl], grant_types: ['authorization_code'],
      response_types: ['code'], token_endpoint_auth_method: 'none', scope: 'openid fleet' };
  },
  clientInformation: () => saved.client,
  saveClientInformation: (c) => { saved.client = c; },
  tokens: () => saved.tokens,
  saveTokens: (t) => { saved.tokens = t; },
  saveCodeVerifier: (v) => { saved.verifier = v; },
  codeVerifier: () => saved.verifier,
  redirectToAuthorization: async (url) => {
    saved.authorizationUrl = url;
    saved.code = await signIn(url.href, process.env.LOGIN, redirectUrl);
  },
};

const deadline = setTimeout(() => { console.error('mcp-oauth: did not finish within 60 s'); process.exit(1); }, 60_000);
deadline.unref();
try {
  const first = new StreamableHTTPClientTransport(hub, { authProvider: provider });
  await assert.rejects(new Client({ name: 'fleetbus-oauth-ci', version: '1.0.0' }).connect(first), UnauthorizedError);
  assert.ok(saved.client?.client_id, 'registered at the issuer');
  assert.equal(saved.authorizationUrl.searchParams.get('resource'), hub.href, 'the token is asked for the hub\'s MCP resource');
  console.log(`ok - discovered the issuer ${saved.authorizationUrl.origin} from the hub's metadata, registered, logged in`);
  await first.finishAuth(saved.code);
  assert.ok(saved.tokens?.access_token, 'the code exchanged for a token');
  const client = new Client({ name: 'fleetbus-oauth-ci', version: '1.0.0' });
  await client.connect(new StreamableHTTPClientTransport(hub, { authProvider: provider }));
  const tools = (await client.listTools()).tools.map((t) => t.name);
  assert.ok(tools.includes('list_nodes'), tools.join(', '));
  const listed = await client.callTool({ name: 'list_nodes', arguments: {} });
  assert.ok(!listed.isError, JSON.stringify(listed));
  console.log('ok - called list_nodes with the issuer\'s token');
  await client.close();
  console.log('mcp-oauth: all checks passed');
  process.exit(0);
} catch (err) {
  console.error(`mcp-oauth: FAILED: ${err && err.stack ? err.stack : err}`);
  process.exit(1);
}
