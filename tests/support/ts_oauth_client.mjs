// Drives a generated server that is an OAuth 2.1 protected resource with the official TypeScript
// v2 client (@modelcontextprotocol/client) and its client-credentials OAuth provider, for
// tests/suite/oauth.rs: the client finds everything itself, from the server's 401 (its
// `resource_metadata`) to the authorization server's metadata and token endpoint, gets a token
// for the server's URL with the scopes asked for, and retries.
//
// Usage: node ts_oauth_client.mjs CLIENT_DIR URL CLIENT_ID CLIENT_SECRET SCOPE ISSUER
//   CLIENT_DIR: the folder whose node_modules holds @modelcontextprotocol/client (scripts/test
//   installs it into target/clients and passes it as MCPGEN_TEST_TS_CLIENT).
//
// Lists the tools, calls tracker_search_issues and then tracker_create_issue in WEB, and prints
// one JSON line: {"tools": [NAME, ...], "search": CallToolResult | {"error"}, "create": ...}, or
// {"connectError": MESSAGE}.
import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [clientDir, url, clientId, clientSecret, scope, issuer] = process.argv.slice(2);
if (!issuer) {
  console.error('usage: node ts_oauth_client.mjs CLIENT_DIR URL CLIENT_ID CLIENT_SECRET SCOPE ISSUER');
  process.exit(2);
}

const root = join(clientDir, 'node_modules', '@modelcontextprotocol', 'client');
const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
const { Client, StreamableHTTPClientTransport, ClientCredentialsProvider } = await import(
  pathToFileURL(join(root, manifest.exports['.'].import.default)).href
);

const message = (error) => (error instanceof Error ? `${error.name}: ${error.message}` : String(error));

const authProvider = new ClientCredentialsProvider({
  clientId,
  clientSecret,
  scope,
  expectedIssuer: issuer,
});
const transport = new StreamableHTTPClientTransport(new URL(url), { authProvider });
const client = new Client(
  { name: 'mcpgen-oauth-tests', version: '1.0.0' },
  { versionNegotiation: { mode: { pin: '2026-07-28' } } },
);
try {
  await client.connect(transport, { timeout: 20000 });
} catch (error) {
  console.log(JSON.stringify({ connectError: message(error) }));
  process.exit(0);
}

const report = {};
const call = async (name, args) => {
  try {
    return await client.callTool({ name, arguments: args });
  } catch (error) {
    return { error: message(error) };
  }
};
try {
  report.tools = (await client.listTools()).tools.map((tool) => tool.name);
} catch (error) {
  report.tools = { error: message(error) };
}
report.search = await call('tracker_search_issues', { project: 'WEB' });
report.create = await call('tracker_create_issue', { project: 'WEB', title: 'Should never be created' });
console.log(JSON.stringify(report));
await client.close();
