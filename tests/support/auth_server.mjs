// An OAuth 2.1 authorization server for the tests of generated servers as protected resources
// (tests/suite/oauth.rs): oidc-provider, a certified OpenID Connect provider, on 127.0.0.1:PORT,
// issuing JWT access tokens through the client-credentials grant for any resource (RFC 8707) the
// request names, with the scopes it asks for among SCOPES.
//
//   MCPGEN_TEST_OIDC=DIR node auth_server.mjs PORT SCOPES [KID]
//
// DIR is the folder whose node_modules holds oidc-provider (scripts/test installs it into
// target/oidc).
//
// Clients, each with the secret `<client_id>-secret`: `mcp-client` (tokens live 5 minutes),
// `short-lived` (1 second), `ts-client` (client_secret_basic, as the TypeScript MCP client's
// client-credentials provider authenticates, and granted `issues:read` at most), `opaque-client` (opaque tokens, checked by introspection, RFC 7662,
// which any client with a secret may ask), and the users `alice` and `bob` (whose tokens' `sub`
// is their name).
// The signing key is generated at start (RS256), with the key id KID (`test-key-1` unless
// given): started again with another KID, the server has rotated its key.
//
// It also plays the tracker API's authorization server for OAuth 2.0 Token Exchange (RFC 8693):
// the client `mcp-server` exchanges an access token this server signed, not expired, for the
// tracker's token of its subject (`alice-token` for alice), which lives EXCHANGED_TTL seconds.
// `GET /test/exchanges` tells how many exchanges it answered. Prints `listening` once it accepts
// connections; stops on SIGTERM.
import { createPublicKey, generateKeyPairSync, verify } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const modules = join(process.env.MCPGEN_TEST_OIDC, 'node_modules');
const { default: Provider, errors } = await import(
  pathToFileURL(join(modules, 'oidc-provider/lib/index.js')).href
);

const [port, scopes, kid = 'test-key-1'] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;
const TOKEN_EXCHANGE = 'urn:ietf:params:oauth:grant-type:token-exchange';
const EXCHANGED_TTL = 600;
const TRACKER_USERS = new Set(['alice', 'bob', 'carol']);

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const publicKey = createPublicKey(privateKey);
const signingKey = { ...privateKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' };

const client = (id, grants = ['client_credentials'], extra = {}) => ({
  client_id: id,
  client_secret: `${id}-secret`,
  grant_types: grants,
  redirect_uris: [],
  response_types: [],
  token_endpoint_auth_method: 'client_secret_post',
  ...extra,
});

const provider = new Provider(issuer, {
  clients: [
    client('mcp-client'),
    client('short-lived'),
    client('opaque-client'),
    client('ts-client', ['client_credentials'], { token_endpoint_auth_method: 'client_secret_basic' }),
    client('alice'),
    client('bob'),
    client('mcp-server', [TOKEN_EXCHANGE]),
  ],
  jwks: { keys: [signingKey] },
  scopes: ['openid', 'offline_access', ...scopes.split(' ')],
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    introspection: { enabled: true },
    resourceIndicators: {
      enabled: true,
      getResourceServerInfo: (ctx, resource, requester) => ({
        scope: requester.clientId === 'ts-client' ? 'issues:read' : scopes,
        audience: resource,
        accessTokenFormat: requester.clientId === 'opaque-client' ? 'opaque' : 'jwt',
        accessTokenTTL: requester.clientId === 'short-lived' ? 1 : 300,
        jwt: { sign: { alg: 'RS256' } },
      }),
    },
  },
});

/** The claims of `token` when this server signed it and it has not expired; otherwise null. */
function verified(token) {
  const parts = String(token).split('.');
  if (parts.length !== 3) return null;
  const signed = Buffer.from(`${parts[0]}.${parts[1]}`);
  if (!verify('sha256', signed, publicKey, Buffer.from(parts[2], 'base64url'))) return null;
  const claims = JSON.parse(Buffer.from(parts[1], 'base64url').toString());
  return claims.iss === issuer && claims.exp * 1000 > Date.now() ? claims : null;
}

let exchanges = 0;
provider.registerGrantType(
  TOKEN_EXCHANGE,
  async (ctx) => {
    const { subject_token: subjectToken, subject_token_type: subjectType } = ctx.oidc.params;
    const claims = subjectType === 'urn:ietf:params:oauth:token-type:access_token'
      ? verified(subjectToken)
      : null;
    if (!claims || !TRACKER_USERS.has(claims.sub)) {
      throw new errors.InvalidGrant('the subject token is not a valid token of a tracker user');
    }
    exchanges += 1;
    ctx.body = {
      access_token: `${claims.sub}-token`,
      issued_token_type: 'urn:ietf:params:oauth:token-type:access_token',
      token_type: 'Bearer',
      expires_in: EXCHANGED_TTL,
    };
  },
  ['subject_token', 'subject_token_type', 'requested_token_type', 'audience', 'scope'],
);

provider.use(async (ctx, next) => {
  if (ctx.path === '/test/exchanges') {
    ctx.body = { exchanges };
    return;
  }
  await next();
});

const server = provider.listen(Number(port), '127.0.0.1', () => {
  process.stdout.write('listening\n');
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
