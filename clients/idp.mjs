// A real OpenID Provider for the hub's identity tests: panva's oidc-provider (OpenID Certified), on 127.0.0.1.
// IDP_PORT: the port; IDP_KEY_FILE (optional): where to write its private signing key (JWK), so a test can forge
// tokens it never issued (expired, another audience) with the key the hub trusts. Users (any password): alice
// (groups fleet-admins), bob (fleet-viewers), carol (marketing). Access tokens are JWTs bound to the resource asked
// for (RFC 8707), RS256, with the user's groups. Clients register dynamically (as MCP clients do) or use
// "fleetbus-test" (public, PKCE), or "fleetbus-dashboard" (public, PKCE) whose redirect URI is IDP_DASHBOARD_REDIRECT
// (a hub's /login/callback; the client exists only when that is set). Prints "idp ready <issuer>" once it listens.
import Provider from 'oidc-provider';
import { generateKeyPairSync } from 'node:crypto';
import { writeFileSync } from 'node:fs';

const port = Number(process.env.IDP_PORT);
const issuer = `http://127.0.0.1:${port}`;
const key = generateKeyPairSync('rsa', { modulusLength: 2048 }).privateKey.export({ format: 'jwk' });
Object.assign(key, { kid: `rsa-${Date.now()}`, alg: 'RS256', use: 'sig' });
if (process.env.IDP_KEY_FILE) writeFileSync(process.env.IDP_KEY_FILE, JSON.stringify(key), { mode: 0o600 });

const groups = { alice: ['fleet-admins'], bob: ['fleet-viewers'], carol: ['marketing'] };

const provider = new Provider(issuer, {
  jwks: { keys: [key] },
  clients: [{
    client_id: 'fleetbus-test', token_endpoint_auth_method: 'none', redirect_uris: ['http://127.0.0.1/cb'],
    grant_types: ['authorization_code'], response_types: ['code'],
  }, ...(process.env.IDP_DASHBOARD_REDIRECT ? [{
    client_id: 'fleetbus-dashboard', token_endpoint_auth_method: 'none',
    redirect_uris: [process.env.IDP_DASHBOARD_REDIRECT], grant_types: ['authorization_code'], response_types: ['code'],
  }] : [])],
  pkce: { required: () => true },
  scopes: ['openid', 'offline_access', 'fleet'],
  findAccount: (ctx, id) => (groups[id] ? { accountId: id, claims: () => ({ sub: id, groups: groups[id] }) } : undefined),
  extraTokenClaims: (ctx, token) => (token.accountId ? { groups: groups[token.accountId] ?? [] } : undefined),
  features: {
    devInteractions: { enabled: true },
    registration: { enabled: true },
    resourceIndicators: {
      enabled: true,
      useGrantedResource: () => true,
      getResourceServerInfo: (ctx, resource) => ({
        scope: 'fleet', audience: resource, accessTokenTTL: 600, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'RS256' } },
      }),
    },
  },
});
provider.listen(port, '127.0.0.1');
console.log(`idp ready ${issuer}`);
