/**
 * The ingress never reaches a registered service: discovery runs on the
 * executors. Separate processes on real Redis and JetStream; the ingress is
 * even allowed loopback and the MCP stdio command, so only the design keeps it
 * from dialing or spawning. With no executor, registering an MCP stdio server
 * and an OpenAPI service answers 503, nothing is spawned (a wrapper writes a
 * marker naming its parent for every start) and the document server sees no
 * request. With an executor up, both register (201 with their tool counts),
 * every MCP server that was started is a child of the executor, and the
 * discovery status of each registration is on `GET /api/tools`.
 */
import { mkdtempSync, readdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { uniquePrefix, cleanupPrefix, LOOPBACK_NETS_ENV } from '../support/services';
import { eventually, roleEnv, startRole, stopRoles, type RoleProcess, requirePlatform } from '../support/processes';
import { startMockServer, type MockServer } from '../support/http-recorder';
import { Api } from './api';

jest.setTimeout(120_000);

const SERVER = require.resolve('@modelcontextprotocol/server-everything/dist/index.js');
const NODE = process.execPath;
/** GitHub's published document (13 MB, 1,223 operations): its catalogue is past NATS's 1 MiB max_payload as plain JSON. */
const GITHUB = readFileSync(require.resolve('@octokit/openapi/generated/api.github.com.json'));
const PETS = JSON.stringify({
  openapi: '3.0.3',
  info: { title: 'pets', version: '1' },
  paths: { '/pets': { get: { operationId: 'listPets', responses: { '200': { description: 'ok' } } } } },
});

describe('discovery runs on the executors, never on the ingress', () => {
  const token = randomBytes(24).toString('hex');
  const prefix = uniquePrefix('disc');
  const procs: RoleProcess[] = [];
  const markers = mkdtempSync(join(tmpdir(), 'hookyard-spawns-'));
  const wrapper = join(markers, 'wrapper.cjs');
  const docRequests: string[] = [];
  let docs: MockServer;
  let docsUrl: string;
  let env: Record<string, string>;
  let ingress: RoleProcess;
  let api: Api;

  const spawned = () =>
    readdirSync(markers)
      .filter((f) => f.endsWith('.spawn'))
      .map((f) => Number(readFileSync(join(markers, f), 'utf8')));
  const mcpRecord = (name: string) => ({ name, kind: 'mcp', transport: 'stdio', command: NODE, args: [wrapper, markers, SERVER], timeout_ms: 20_000 });

  beforeAll(async () => {
    await requirePlatform();
    // Every start of the MCP server leaves <pid>.spawn holding its parent's pid, then runs the server over stdio.
    writeFileSync(
      wrapper,
      [
        "const { writeFileSync } = require('node:fs');",
        "const { join } = require('node:path');",
        "const { pathToFileURL } = require('node:url');",
        'const [dir, server] = process.argv.slice(2);',
        "writeFileSync(join(dir, process.pid + '.spawn'), String(process.ppid));",
        "process.argv = [process.argv[0], server, 'stdio'];",
        'import(pathToFileURL(server).href);',
      ].join('\n'),
    );
    docs = await startMockServer((req) => {
      docRequests.push(req.url);
      return { headers: { connection: 'close' }, body: req.url.startsWith('/github/') ? GITHUB : PETS };
    });
    docsUrl = docs.url;
    env = roleEnv(prefix, token, {
      HOOKS_DOOR_RATE: '0',
      HOOKS_API_RATE: '0',
      HOOKS_DISCOVERY_TIMEOUT_SECONDS: '30',
      // Allowed everywhere: what keeps the ingress from dialing or spawning is that it has no way to.
      HOOKS_OUTBOUND_ALLOW_NETS: LOOPBACK_NETS_ENV,
      HOOKS_MCP_STDIO_ALLOW: NODE,
      HOOKS_OPENAPI_MAX_BYTES: String(32 * 1024 * 1024),
    });
    ingress = startRole('ingress', 'ingress', env);
    procs.push(ingress);
    await ingress.waitListening();
    api = new Api(ingress.url, token);
  });

  afterAll(async () => {
    await stopRoles(procs, 'SIGKILL');
    await docs.close();
    rmSync(markers, { recursive: true, force: true });
    await cleanupPrefix(prefix);
  });

  it('with no executor, registrations answer 503 and the ingress neither spawns nor dials', async () => {
    const mcp = await api.call<{ error: { kind: string; message: string } }>('POST', '/api/tools', mcpRecord('everything'));
    expect(mcp.status).toBe(503);
    expect(mcp.body.error).toMatchObject({
      kind: 'unavailable',
      message: expect.stringContaining('no executor answered the discovery request within 30000 ms (no executor is subscribed)'),
    });
    const pets = await api.call('POST', '/api/tools', { name: 'pets', kind: 'openapi', endpoint: docsUrl });
    expect(pets.status).toBe(503);
    // A hook naming a tool of a registration kept unchecked cannot be checked now: 503, not "not registered".
    expect((await api.call('POST', '/api/tools?discover=false', { name: 'later', kind: 'openapi', endpoint: docsUrl })).status).toBe(201);
    const hook = await api.call('POST', '/api/hooks', { name: 'list-later', topic: 'orders', tool: 'later__list_pets' });
    expect(hook.status).toBe(503);
    // Listing still answers: the local tools, the records, and no discovery yet.
    const listed = await api.ok<{ tools: { name: string }[]; discovery: unknown[] }>('GET', '/api/tools');
    expect(listed.tools.map((t) => t.name)).toContain('echo');
    expect(listed.discovery).toEqual([{ name: 'later', last_success: null, last_error: null }]);
    expect(spawned()).toEqual([]);
    expect(docRequests).toEqual([]);
  });

  it("with an executor up, both register; every MCP server started is the executor's child; the status is on GET /api/tools", async () => {
    const executor = startRole('executor', 'executor', env);
    procs.push(executor);
    await executor.waitListening();
    const mcp = await api.call<{ tools: number; discovered: boolean }>('POST', '/api/tools', mcpRecord('everything'));
    expect(mcp.status).toBe(201);
    expect(mcp.body.discovered).toBe(true);
    expect(mcp.body.tools).toBeGreaterThan(3);
    const pets = await api.call<{ tools: number }>('POST', '/api/tools', { name: 'pets', kind: 'openapi', endpoint: docsUrl });
    expect(pets).toEqual({ status: 201, body: expect.objectContaining({ discovered: true, tools: 1 }) });
    expect(docRequests.length).toBeGreaterThan(0);
    // The ingress lists the tools as the executor described them, and a hook on one is checked against its schema.
    const listed = await eventually(
      async () => {
        const l = await api.ok<{ tools: { name: string }[]; discovery: { name: string; last_success: { tools: number } | null }[] }>('GET', '/api/tools');
        return l.tools.some((t) => t.name === 'everything__echo') && l.discovery.some((d) => d.name === 'everything' && d.last_success) ? l : undefined;
      },
      30_000,
      "the executor's catalogue and the discovery status",
    );
    expect(listed.tools.map((t) => t.name)).toEqual(expect.arrayContaining(['pets__list_pets', 'later__list_pets', 'everything__echo']));
    expect(listed.discovery.find((d) => d.name === 'pets')).toEqual({ name: 'pets', last_success: { at: expect.any(String), tools: 1 }, last_error: null });
    expect(listed.discovery.find((d) => d.name === 'everything')?.last_success?.tools).toBe(mcp.body.tools);
    expect((await api.call('POST', '/api/hooks', { name: 'echo-mcp', topic: 'orders', tool: 'everything__echo', tool_kwargs: { message: 'hi' } })).status).toBe(
      201,
    );
    expect((await api.call('POST', '/api/hooks', { name: 'echo-bad', topic: 'orders', tool: 'everything__echo', tool_kwargs: { message: 7 } })).status).toBe(
      400,
    );
    // GitHub's 1,223 operations: the executor's catalogue reaches the ingress whole over NATS, and a hook on one is checked against its schema.
    const github = await api.call<{ tools: number }>('POST', '/api/tools', {
      name: 'github',
      kind: 'openapi',
      endpoint: `${docsUrl}/github`,
      timeout_ms: 30_000,
    });
    expect(github).toEqual({ status: 201, body: expect.objectContaining({ discovered: true, tools: 1223 }) });
    const all = await api.ok<{ tools: { name: string }[] }>('GET', '/api/tools');
    expect(all.tools.filter((t) => t.name.startsWith('github__'))).toHaveLength(1223);
    const bug = { owner: 'octocat', repo: 'hello-world', title: 'Disk full' };
    expect((await api.call('POST', '/api/hooks', { name: 'file-bug', topic: 'alerts', tool: 'github__issues_create', tool_kwargs: bug })).status).toBe(201);
    expect(
      (await api.call('POST', '/api/hooks', { name: 'file-bug-2', topic: 'alerts', tool: 'github__issues_create', tool_kwargs: { ...bug, milestone: true } }))
        .status,
    ).toBe(400);
    const parents = spawned();
    expect(parents.length).toBeGreaterThan(0);
    expect(new Set(parents)).toEqual(new Set([executor.child.pid]));
    expect(parents).not.toContain(ingress.child.pid);
  });

  it("a registration whose service is down is 502 from the executor's discovery; its error is kept with its time", async () => {
    await docs.close();
    const again = await api.call<{ error: { message: string } }>('POST', '/api/tools', { name: 'pets', kind: 'openapi', endpoint: docsUrl });
    expect(again.status).toBe(502);
    expect(again.body.error.message).toContain('could not be reached');
    const status = await api.ok<{ discovery: { name: string; last_success: unknown; last_error: { at: string; kind: string; message: string } | null }[] }>(
      'GET',
      '/api/tools/pets',
    );
    expect(status.discovery).toEqual({
      name: 'pets',
      last_success: { at: expect.any(String), tools: 1 },
      last_error: { at: expect.any(String), kind: 'unavailable', message: expect.stringContaining('could not be reached') },
    });
    // Reopened for afterAll's close.
    docs = await startMockServer();
  });
});
