/**
 * The official MCP conformance CLI (@modelcontextprotocol/conformance, its
 * server mode) against Hookyard's /mcp door: an embedded Hookyard (the `all`
 * role as `hookyard serve` runs it: ingress and executor in this process, the
 * memory store and bus) with one agent, each applicable scenario run by the
 * CLI as a child process, its checks.json read back. CONFORMANCE.md lists the
 * scenarios run and those that do not apply, with the reason.
 *
 * The CLI's server mode sends no headers of its own and /mcp takes only an
 * agent's bearer token, so the CLI talks to a loopback proxy that adds the
 * token and forwards everything else as sent (bearer-proxy.ts).
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { AGENT_TOKEN_PREFIX, agentTokenHash, silentLogger } from '@hookyard/core';
import { validateToolRecord } from '@hookyard/tools';
import { serve, type Served } from '../../packages/cli/src/serve';
import { startMockServer, type MockServer } from '../support/http-recorder';
import { LOOPBACK_NETS_ENV } from '../support/services';
import { startBearerProxy, type BearerProxy } from './bearer-proxy';

const CLI = require.resolve('@modelcontextprotocol/conformance/dist/index.js');
/** One scenario's bound: the CLI starts in about a second and each scenario is a handful of requests. */
const SCENARIO_MS = 20_000;

const AGENT = 'conformance';
const TOKEN = `${AGENT_TOKEN_PREFIX}conformance-0123456789abcdef0123456789abcdef`;

/** What the scenarios named for a fixture tool expect, served by a registered HTTP tool of that name. */
const SIMPLE_TEXT = 'This is a simple text response for testing.';
const ERROR_TEXT = 'This tool intentionally returns an error for testing';
const SCHEMA_2020_12 = {
  $schema: 'https://json-schema.org/draft/2020-12/schema',
  type: 'object',
  $defs: { address: { type: 'object', properties: { street: { type: 'string' }, city: { type: 'string' } } } },
  properties: { name: { type: 'string' }, address: { $ref: '#/$defs/address' } },
  additionalProperties: false,
};
const FIXTURES: Record<string, { description: string; parameters: Record<string, unknown>; reply: { status: number; body: string } }> = {
  test_simple_text: { description: 'Returns a fixed text', parameters: { type: 'object' }, reply: { status: 200, body: JSON.stringify(SIMPLE_TEXT) } },
  test_error_handling: { description: 'Always fails', parameters: { type: 'object' }, reply: { status: 400, body: ERROR_TEXT } },
  json_schema_2020_12_tool: { description: 'Tool with JSON Schema 2020-12 features', parameters: SCHEMA_2020_12, reply: { status: 200, body: '{}' } },
};

/** The agent's tools: `echo` (built in) and the fixtures. */
const AGENT_TOOLS = ['echo', ...Object.keys(FIXTURES)].sort();

interface Check {
  id: string;
  status: 'SUCCESS' | 'FAILURE' | 'WARNING' | 'INFO' | 'SKIPPED';
  errorMessage?: string;
  details?: Record<string, unknown>;
}

/**
 * The scenarios that apply to a server with its own tools (CONFORMANCE.md says
 * why the others do not), each with what its checks must also show beyond
 * passing, so a pass cannot be an empty one.
 */
const APPLICABLE: Record<string, (checks: Check[]) => void> = {
  'server-initialize': () => undefined,
  ping: () => undefined,
  'tools-list': (checks) => expect(checks[0]?.details?.tools).toEqual(AGENT_TOOLS),
  'tools-call-simple-text': (checks) => {
    expect(checks[0]?.details?.result).toMatchObject({ content: [{ type: 'text', text: SIMPLE_TEXT }] });
    expect(tools.seen.filter((r) => r.method === 'POST' && r.url === '/svc/test_simple_text')).toHaveLength(1);
  },
  'tools-call-error': (checks) => {
    // The run failed on the tool's 400; the agent gets a sentence quoting it, as a result.
    expect(checks[0]?.details?.result).toMatchObject({ isError: true, content: [{ type: 'text', text: expect.stringContaining(ERROR_TEXT) }] });
    expect(tools.seen.filter((r) => r.method === 'POST' && r.url === '/svc/test_error_handling')).toHaveLength(1);
  },
  'server-sse-multiple-streams': (checks) =>
    expect(checks.map((c) => [c.id, c.status])).toEqual([
      ['server-accepts-multiple-post-streams', 'SUCCESS'],
      ['server-sse-streams-functional', 'SUCCESS'],
    ]),
  // Pending (not in the CLI's default suite) in 0.1.16: the tool's 2020-12 schema reaches tools/list whole.
  'json-schema-2020-12': (checks) =>
    expect(checks.map((c) => [c.id, c.status])).toEqual([
      ['json-schema-2020-12-tool-found', 'SUCCESS'],
      ['json-schema-2020-12-$schema', 'SUCCESS'],
      ['json-schema-2020-12-$defs', 'SUCCESS'],
      ['json-schema-2020-12-additionalProperties', 'SUCCESS'],
    ]),
  'dns-rebinding-protection': (checks) => {
    // The 4xx is the Host check (403), not a missing token (401): the proxy sent the token with the rebinding Host too.
    const rejected = checks.find((c) => c.id === 'localhost-host-rebinding-rejected');
    expect(rejected?.details).toMatchObject({ statusCode: 403, body: { error: { message: 'Invalid Host header: evil.example.com' } } });
    expect(checks.find((c) => c.id === 'localhost-host-valid-accepted')?.details?.statusCode).toBe(200);
  },
};

interface ScenarioRun {
  code: number | null;
  stdout: string;
  checks: Check[];
}

let hookyard: Served;
let tools: MockServer;
let proxy: BearerProxy;
let outRoot: string;
/** What each scenario did, printed at the end. */
const ran: { scenario: string; verdict: string; passed: number; failed: number; other: number }[] = [];

function record(scenario: string, checks: Check[], verdict: string): void {
  const count = (status: Check['status']) => checks.filter((c) => c.status === status).length;
  ran.push({ scenario, verdict, passed: count('SUCCESS'), failed: count('FAILURE'), other: checks.length - count('SUCCESS') - count('FAILURE') });
}

/** Runs one scenario with the CLI (under the node running jest) and reads its checks.json. */
async function runScenario(url: string, scenario: string): Promise<ScenarioRun> {
  const out = await mkdtemp(join(outRoot, `${scenario}-`));
  const { code, stdout } = await new Promise<{ code: number | null; stdout: string }>((resolve) => {
    execFile(process.execPath, [CLI, 'server', '--url', url, '--scenario', scenario, '-o', out], { timeout: SCENARIO_MS, encoding: 'utf8' }, (err, so, se) =>
      resolve({ code: err ? (typeof err.code === 'number' ? err.code : null) : 0, stdout: `${so}${se}` }),
    );
  });
  const dirs = await readdir(out);
  if (dirs.length !== 1) throw new Error(`${scenario}: expected one result directory, found ${dirs.length} (exit ${code}):\n${stdout}`);
  const checks = JSON.parse(await readFile(join(out, dirs[0]!, 'checks.json'), 'utf8')) as Check[];
  return { code, stdout, checks };
}

beforeAll(async () => {
  outRoot = await mkdtemp(join(tmpdir(), 'hookyard-conformance-'));
  tools = await startMockServer((req) => {
    const name = /^\/svc\/([a-z0-9_]+)(\/schema)?$/.exec(req.url);
    const fixture = name ? FIXTURES[name[1]!] : undefined;
    if (!name || !fixture) return { status: 404, body: 'no such tool' };
    if (name[2]) return { body: JSON.stringify({ functions: [{ name: name[1], description: fixture.description, parameters: fixture.parameters }] }) };
    return { ...fixture.reply, contentType: fixture.reply.status === 200 ? 'application/json' : 'text/plain' };
  });
  hookyard = await serve(
    'all',
    {
      HOOKS_HTTP_HOST: '127.0.0.1',
      HOOKS_HTTP_PORT: '0',
      HOOKS_API_TOKENS: 'admin:conformance-admin-token-0123456789abcdef',
      HOOKS_OUTBOUND_ALLOW_NETS: LOOPBACK_NETS_ENV,
    },
    silentLogger(),
  );
  const { stores } = hookyard.runtime;
  for (const [name, f] of Object.entries(FIXTURES)) {
    const v = validateToolRecord({ name, endpoint: `${tools.url}/svc/${name}`, protocol: 'langserve', description: f.description }, new Date());
    if (!v.ok) throw new Error(v.errors.join('; '));
    await stores.tools.putTool(v.record);
  }
  await stores.agents.create({ name: AGENT, description: 'the conformance CLI', tools_allow: AGENT_TOOLS, tokenHash: agentTokenHash(TOKEN) }, Date.now());
  proxy = await startBearerProxy(hookyard.url, TOKEN);
}, 30_000);

afterAll(async () => {
  const rows = ran.map((r) => `  ${r.scenario}: ${r.verdict} (${r.passed} checks passed, ${r.failed} failed, ${r.other} other)`);
  process.stdout.write(`\nMCP conformance (CLI 0.1.16) against /mcp:\n${rows.join('\n')}\n`);
  await proxy?.close();
  await hookyard?.stop();
  await tools?.close();
  if (outRoot) await rm(outRoot, { recursive: true, force: true });
});

describe('MCP conformance server scenarios (@modelcontextprotocol/conformance 0.1.16) against /mcp', () => {
  it.each(Object.keys(APPLICABLE))(
    '%s passes',
    async (scenario) => {
      const r = await runScenario(`${proxy.url}/mcp`, scenario);
      const failed = r.checks.filter((c) => c.status === 'FAILURE');
      record(scenario, r.checks, failed.length === 0 && r.code === 0 ? 'pass' : 'FAIL');
      // The failed checks first: on a failure the message shows what the CLI saw.
      expect(failed).toEqual([]);
      // A scenario that only warned (e.g. no session id) proved nothing: every check it counts must succeed.
      expect(r.checks.filter((c) => c.status === 'WARNING')).toEqual([]);
      expect(r.checks.some((c) => c.status === 'SUCCESS')).toBe(true);
      expect(r.code).toBe(0);
      APPLICABLE[scenario]!(r.checks);
    },
    SCENARIO_MS + 5000,
  );

  it(
    'the door is not open: without the agent token (no proxy) the CLI cannot initialize',
    async () => {
      const r = await runScenario(`${hookyard.url}/mcp`, 'server-initialize');
      expect(r.code).toBe(1);
      expect(r.checks).toEqual([expect.objectContaining({ id: 'server-initialize', status: 'FAILURE' })]);
    },
    SCENARIO_MS + 5000,
  );
});
