// Drives a generated MCP server with the official TypeScript v2 client (@modelcontextprotocol/client),
// for tests/suite/clients.rs. The client validates every `structuredContent` against the tool's
// `outputSchema` with AJV (after a `tools/list`), so a call whose answer does not fit its schema
// fails here.
//
// Usage: node ts_client.mjs CLIENT_DIR PLAN.json
//   CLIENT_DIR: the folder whose node_modules holds @modelcontextprotocol/client (scripts/test
//   installs it into target/clients and passes it as MCPGEN_TEST_TS_CLIENT).
//   PLAN.json: {"sessions": [SESSION, ...]}, each SESSION
//     {"mode": "legacy" | "auto" | "2026-07-28",
//      "stdio": {"command": PATH, "args": [...], "env": {NAME: VALUE}}   or   "url": "http://…/mcp",
//      "steps": [{"list": true} | {"call": NAME, "args": {...}, "outputSchema": SCHEMA?}, ...]}
//   A call with its own `outputSchema` has the client validate the answer against that schema
//   instead of the listed one (the client's `toolDefinition` option): how a test shows that the
//   validation runs at all.
//   The sessions run one after the other, each over its own connection.
//
// Prints one JSON line per session: {"mode", "transport", "protocolVersion", "era", "steps": [...]},
// where a `list` step gives {"tools": [...], "schemaErrors": [...]} (each input and output schema
// compiled with the client's own AJV validator; a schema it cannot compile is listed) and a `call`
// step gives {"result": CallToolResult} or {"error": MESSAGE} when the client threw (a protocol
// error, or structured content its output schema refuses). Exits 1 only when it cannot run a plan
// at all (a connection that fails is reported as {"connectError": MESSAGE}).

import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { pathToFileURL } from 'node:url';

const [clientDir, planPath] = process.argv.slice(2);
if (!clientDir || !planPath) {
  console.error('usage: node ts_client.mjs CLIENT_DIR PLAN.json');
  process.exit(2);
}

// The package's ESM entry point for `subpath`, read from its `exports` as Node would for `import`.
function entry(subpath) {
  const root = join(clientDir, 'node_modules', '@modelcontextprotocol', 'client');
  const manifest = JSON.parse(readFileSync(join(root, 'package.json'), 'utf8'));
  const target = manifest.exports[subpath]?.import?.default;
  if (!target) throw new Error(`@modelcontextprotocol/client exports no ESM entry ${subpath}`);
  return pathToFileURL(join(root, target)).href;
}

const { Client, StreamableHTTPClientTransport } = await import(entry('.'));
const { StdioClientTransport } = await import(entry('./stdio'));
const { AjvJsonSchemaValidator } = await import(entry('./validators/ajv'));

function negotiation(mode) {
  if (mode === 'legacy' || mode === 'auto') return { mode };
  return { mode: { pin: mode } };
}

function message(error) {
  return error instanceof Error ? `${error.name}: ${error.message}` : String(error);
}

// Every schema of every tool compiled as the client compiles output schemas.
function schemaErrors(tools) {
  const validator = new AjvJsonSchemaValidator();
  const errors = [];
  for (const tool of tools) {
    for (const key of ['inputSchema', 'outputSchema']) {
      if (tool[key] === undefined) continue;
      try {
        validator.getValidator(tool[key]);
      } catch (error) {
        errors.push(`${tool.name} ${key}: ${message(error)}`);
      }
    }
  }
  return errors;
}

async function runSession(session) {
  const transport = session.stdio
    ? new StdioClientTransport({
        command: session.stdio.command,
        args: session.stdio.args ?? [],
        env: { ...process.env, ...(session.stdio.env ?? {}) },
        stderr: 'ignore',
      })
    : new StreamableHTTPClientTransport(new URL(session.url));
  const client = new Client(
    { name: 'mcpgen-tests', version: '1.0.0' },
    { versionNegotiation: negotiation(session.mode) },
  );
  const report = { mode: session.mode, transport: session.stdio ? 'stdio' : 'http' };
  try {
    await client.connect(transport, { timeout: 20000 });
  } catch (error) {
    report.connectError = message(error);
    return report;
  }
  report.protocolVersion = client.getNegotiatedProtocolVersion() ?? null;
  report.era = client.getProtocolEra() ?? null;
  report.steps = [];
  try {
    for (const step of session.steps) {
      if (step.list) {
        try {
          const listed = await client.listTools();
          report.steps.push({ tools: listed.tools, schemaErrors: schemaErrors(listed.tools) });
        } catch (error) {
          report.steps.push({ error: message(error) });
        }
      } else {
        try {
          const options =
            step.outputSchema === undefined
              ? undefined
              : {
                  toolDefinition: {
                    name: step.call,
                    inputSchema: { type: 'object' },
                    outputSchema: step.outputSchema,
                  },
                };
          const params = { name: step.call, arguments: step.args ?? {} };
          const result = await client.callTool(params, options);
          report.steps.push({ result });
        } catch (error) {
          report.steps.push({ error: message(error) });
        }
      }
    }
  } finally {
    await client.close().catch(() => {});
  }
  return report;
}

const plan = JSON.parse(readFileSync(planPath, 'utf8'));
for (const session of plan.sessions) {
  process.stdout.write(`${JSON.stringify(await runSession(session))}\n`);
}
