// An OAuth 2.1 authorization server for the tests of generated servers as protected resources
// (tests/oauth.rs): oidc-provider, a certified OpenID Connect provider, on 127.0.0.1:PORT, issuing
// JWT access tokens through the client-credentials grant for any resource (RFC 8707) the request
// names, with the scopes it asks for among SCOPES.
//
//   MCPGEN_TEST_OIDC=DIR node auth_server.mjs PORT SCOPES [KID]
//
// DIR is the folder whose node_modules holds oidc-provider (scripts/test installs it into
// target/oidc).
// Clients: `mcp-client` (tokens live 5 minutes) and `short-lived` (1 second), each with the secret
// `<client_id>-secret`. The signing key is generated at start (RS256), with the key id KID
// (`test-key-1` unless given): started again with another KID, the server has rotated its key. Prints `listening` once it accepts connections; stops on SIGTERM.
import { generateKeyPairSync } from 'node:crypto';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const modules = join(process.env.MCPGEN_TEST_OIDC, 'node_modules');
const { default: Provider } = await import(
  pathToFileURL(join(modules, 'oidc-provider/lib/index.js')).href
);

const [port, scopes, kid = 'test-key-1'] = process.argv.slice(2);
const issuer = `http://127.0.0.1:${port}`;

const { privateKey } = generateKeyPairSync('rsa', { modulusLength: 2048 });
const signingKey = { ...privateKey.export({ format: 'jwk' }), kid, alg: 'RS256', use: 'sig' };

const client = (id) => ({
  client_id: id,
  client_secret: `${id}-secret`,
  grant_types: ['client_credentials'],
  redirect_uris: [],
  response_types: [],
  token_endpoint_auth_method: 'client_secret_post',
});

const provider = new Provider(issuer, {
  clients: [client('mcp-client'), client('short-lived')],
  jwks: { keys: [signingKey] },
  features: {
    devInteractions: { enabled: false },
    clientCredentials: { enabled: true },
    resourceIndicators: {
      enabled: true,
      getResourceServerInfo: (ctx, resource, requester) => ({
        scope: scopes,
        audience: resource,
        accessTokenFormat: 'jwt',
        accessTokenTTL: requester.clientId === 'short-lived' ? 1 : 300,
        jwt: { sign: { alg: 'RS256' } },
      }),
    },
  },
});

const server = provider.listen(Number(port), '127.0.0.1', () => {
  process.stdout.write('listening\n');
});
process.on('SIGTERM', () => server.close(() => process.exit(0)));
