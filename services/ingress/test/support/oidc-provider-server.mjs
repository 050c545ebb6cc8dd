// A real OAuth 2.1 / OpenID Connect authorization server (oidc-provider) on
// loopback, for the agent door's end-to-end test: dynamic client
// registration, PKCE, resource indicators issuing JWT access tokens for the
// one resource named by HOOKYARD_RESOURCE, and its own login and consent
// pages (devInteractions), which the test answers. Prints {"issuer": ...}
// once listening. An ES module in its own process: oidc-provider ships ES
// modules only.
//
// For people (optional): HOOKYARD_API_RESOURCE is a second resource, the
// management API, whose tokens carry `roles` and `preferred_username` from
// HOOKYARD_PEOPLE (JSON: login -> {roles, preferred_username?, email?});
// HOOKYARD_CLIENTS (JSON: a list of client metadata) pre-registers clients,
// such as the console's public client; HOOKYARD_API_TTL the API tokens' lifetime
// in seconds (short, for the console's renewal).
import { generateKeyPairSync } from 'node:crypto';
import { createServer } from 'node:http';
import Provider, { errors } from 'oidc-provider';

const resource = process.env.HOOKYARD_RESOURCE;
if (!resource) throw new Error('HOOKYARD_RESOURCE is required');
const apiResource = process.env.HOOKYARD_API_RESOURCE;
const people = JSON.parse(process.env.HOOKYARD_PEOPLE ?? '{}');
const clients = JSON.parse(process.env.HOOKYARD_CLIENTS ?? '[]');
const apiTtl = Number(process.env.HOOKYARD_API_TTL ?? 600);
const jwtAt = (audience, scope, ttl = 600) => ({ scope, audience, accessTokenTTL: ttl, accessTokenFormat: 'jwt', jwt: { sign: { alg: 'ES256' } } });
const jwk = (type, opts, kid, alg) => ({ ...generateKeyPairSync(type, opts).privateKey.export({ format: 'jwk' }), kid, alg, use: 'sig' });

const server = createServer();
await new Promise((resolve) => server.listen(0, '127.0.0.1', resolve));
const issuer = `http://127.0.0.1:${server.address().port}`;

const provider = new Provider(issuer, {
  jwks: { keys: [jwk('rsa', { modulusLength: 2048 }, 'rs-1', 'RS256'), jwk('ec', { namedCurve: 'P-256' }, 'es-1', 'ES256')] },
  cookies: { keys: ['hookyard-test-cookie-key-0123456789'] },
  // Dynamic registration takes only scopes the server lists: the resource's scope among them.
  scopes: ['openid', 'offline_access', 'hookyard:agent', 'hookyard:api'],
  clients,
  // Refresh tokens for any client allowed the grant, as many IdPs do (oidc-provider's own default
  // wants offline_access, which OIDC drops unless prompt=consent).
  issueRefreshToken: (_ctx, client) => client.grantTypeAllowed('refresh_token'),
  // A person's roles and readable name, in access tokens for the API only.
  extraTokenClaims: (_ctx, token) => {
    if (!apiResource || token.resourceServer?.audience !== apiResource) return undefined;
    const p = people[token.accountId] ?? {};
    return { roles: p.roles ?? [], ...(p.preferred_username ? { preferred_username: p.preferred_username } : {}), ...(p.email ? { email: p.email } : {}) };
  },
  features: {
    devInteractions: { enabled: true },
    registration: { enabled: true },
    resourceIndicators: {
      enabled: true,
      defaultResource: () => resource,
      useGrantedResource: () => true,
      getResourceServerInfo: (_ctx, indicator) => {
        if (indicator === resource) return jwtAt(resource, 'hookyard:agent');
        if (apiResource && indicator === apiResource) return jwtAt(apiResource, 'hookyard:api', apiTtl);
        // Some other service at the same IdP: its tokens are no Hookyard door's.
        if (indicator.startsWith('https://elsewhere.example/')) return jwtAt(indicator, 'hookyard:api');
        throw new errors.InvalidTarget(`unknown resource ${indicator}`);
      },
    },
  },
  pkce: { required: () => true },
  findAccount: (_ctx, id) => ({ accountId: id, claims: () => ({ sub: id }) }),
});
// Each answered request, one JSON line after the first, for the tests that
// check which endpoints a client reached.
server.on('request', (req, res) =>
  res.on('finish', () => process.stdout.write(`${JSON.stringify({ request: `${req.method} ${req.url.split('?')[0]} ${res.statusCode}` })}\n`)),
);
server.on('request', provider.callback());
process.stdout.write(`${JSON.stringify({ issuer })}\n`);
process.on('SIGTERM', () => server.close(() => process.exit(0)));
