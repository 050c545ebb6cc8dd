/**
 * Secrets referenced, never stored or echoed — through the management API,
 * the door and the executor: tool registrations hold `{"secret":"env:NAME"}`,
 * the executor resolves them per call (the mock service sees the secret on the
 * wire), and no API answer and no log line ever carries a secret value. A
 * reference that is not set fails the run `internal`, quoting the reference.
 */
import type { IncomingHttpHeaders } from 'node:http';
import { startMockServer, type MockServer } from '../support/http-recorder';
import { createLogger, createMetrics, createSecretResolver, loadSettings, type Run } from '@hookyard/core';
import { createMemoryBus, type RunBus } from '@hookyard/bus';
import { createJqEngine } from '@hookyard/jq';
import { createMemoryStores, type Stores } from '@hookyard/store';
import { REDACTED, createToolRepo, type ClosableToolRepo } from '@hookyard/tools';
import { LOOPBACK_NETS } from '../support/services';
import { startExecutor, type ExecutorHandle } from '../../services/executor/src/start';
import { startHarness, type Harness } from '../../services/ingress/test/support/harness';

const TICKETS_SECRET = 'tk-live-5f1e0c9a7b3d2e4f';
const PETS_SECRET = 'pk-live-a1b2c3d4e5f60718';
const LEGACY_SECRET = 'legacy-bearer-99aa88bb77cc';
const SECRETS = [TICKETS_SECRET, PETS_SECRET, LEGACY_SECRET];
/** A bot token an upstream echoes back (a chat API repeating the request, an error page quoting it). */
const ECHO_TOKEN = 'xoxb-4815162342-1081321345-Zk/9+q7Rw2pLxVbN';
const ECHO_AUTH = `Bearer ${ECHO_TOKEN}`;
const FINAL = new Set(['succeeded', 'skipped', 'failed', 'discarded']);

const DOC = {
  openapi: '3.0.3',
  info: { title: 'pets', version: '1' },
  paths: {
    '/pets': {
      post: {
        operationId: 'createPet',
        parameters: [{ name: 'X-Api-Key', in: 'header', required: true, schema: { type: 'string' } }],
        requestBody: { required: true, content: { 'application/json': { schema: { type: 'object', properties: { name: { type: 'string' } } } } } },
        responses: { '201': { description: 'made' } },
      },
    },
  },
};

interface Seen {
  url: string;
  headers: IncomingHttpHeaders;
}

let server: MockServer;
let base = '';
const seen: Seen[] = [];
const logLines: string[] = [];
const apiBodies: string[] = [];
let stores: Stores;
let tools: ClosableToolRepo;
let h: Harness;
let executor: ExecutorHandle;
/** The executor's bus: the harness's bus only records what the door published; `door` hands it on. */
let execBus: RunBus;
let jq: Awaited<ReturnType<typeof createJqEngine>>;

beforeAll(async () => {
  server = await startMockServer((req) => {
    seen.push({ url: req.url, headers: req.headers });
    if (req.url === '/pets/openapi.json') return { body: JSON.stringify(DOC) };
    if (req.url.endsWith('/schema')) return { status: 404 };
    if (req.url.startsWith('/reflect')) return echoReply(req.url, String(req.headers.authorization));
    return { status: 201, body: '{"ok":true}' };
  });
  base = server.url;

  // Every line any role logs, at debug, to check that no secret is ever written.
  const logger = createLogger({ level: 'debug', destination: { write: (s: string) => void logLines.push(s) } });
  const env: NodeJS.ProcessEnv = {
    HOOKS_SECRET_TICKETS_API_KEY: TICKETS_SECRET,
    HOOKS_SECRET_PETS_API_KEY: PETS_SECRET,
    HOOKS_SECRET_ECHO_AUTH: ECHO_AUTH,
  };
  stores = createMemoryStores();
  jq = await createJqEngine();
  const settings = loadSettings({}, { outboundAllowNets: LOOPBACK_NETS, maxWorkers: 2, retryBaseMs: 10, retryCapMs: 50, toolTimeoutMs: 5000 });
  tools = createToolRepo({ settings, toolStore: stores.tools, logger, secrets: createSecretResolver({ env }) });
  h = await startHarness({ stores, tools, jq, deps: { logger, limiter: null } });
  execBus = createMemoryBus();
  executor = await startExecutor({ settings, stores, bus: execBus, jq, tools, metrics: createMetrics({ defaultMetrics: false }), logger });
});

afterAll(async () => {
  await executor.stop(1000);
  await h.close();
  await execBus.close();
  await tools.close();
  await jq.close();
  await server.close();
});

/**
 * What an echoing upstream answers: the Authorization header it got, raw,
 * base64 and URL-encoded, in its body and a reply header; once more across the
 * 2 KiB the run keeps of a body (so the excerpt ends inside it). `/reflect-fail`
 * answers 401 quoting it, as an error page does.
 */
function echoReply(url: string, auth: string) {
  if (url === '/reflect-fail') return { status: 401, body: JSON.stringify({ error: 'invalid_auth', got: auth, b64: Buffer.from(auth).toString('base64') }) };
  const head = JSON.stringify({ echo: { authorization: auth, base64: Buffer.from(auth).toString('base64'), url: encodeURIComponent(auth) }, pad: '' });
  // The pad puts the second copy's first characters just inside the kept excerpt.
  const pad = 'y'.repeat(2048 - (head.length - '"}'.length) - '","straddle":"Bearer xoxb-48'.length);
  const body = JSON.stringify({ echo: JSON.parse(head).echo, pad, straddle: auth });
  return { body, headers: { 'x-echo': auth } };
}

/** Whether a reader's text holds any form of the echoed token a reader could use: raw, base64, URL-encoded, or a start of it. */
function holdsEcho(text: string): boolean {
  return [ECHO_TOKEN.slice(0, 12), Buffer.from(ECHO_AUTH).toString('base64').slice(0, 16), encodeURIComponent(ECHO_TOKEN), 'Zk/9+q7Rw2pLxVbN'].some((f) =>
    text.includes(f),
  );
}

/** An API call whose answer is kept, to check that none carries a secret. */
async function api(path: string, init: Parameters<Harness['call']>[1] = {}) {
  const r = await h.call(path, { role: 'admin', ...init });
  apiBodies.push(r.text);
  return r;
}

/** An event through the door; the run ids it published are handed to the executor. */
async function door(topic: string, payload: unknown) {
  const from = h.bus.published.length;
  const r = await api(`/universal_webhook/${topic}`, { method: 'POST', json: payload });
  await execBus.publish(h.bus.published.slice(from).flat());
  return r;
}

async function runOf(hook: string): Promise<Run> {
  // Bounded wait for the run to end (not a speed assertion: the bound only stops a hung test).
  for (let i = 0; i < 500; i++) {
    const page = (await api(`/api/hook-runs?hook=${hook}`)).body as { runs: Run[] };
    const run = page.runs[0];
    if (run && FINAL.has(run.status)) return (await api(`/api/hook-runs/${run.id}`)).body as Run;
    await new Promise((r) => setTimeout(r, 20));
  }
  throw new Error(`the run of hook ${hook} did not end`);
}

describe('tool secrets through the API, the door and the executor', () => {
  it('a literal credential is refused at registration: one line naming the field, the value not quoted', async () => {
    const r = await api('/api/tools', {
      method: 'POST',
      json: { name: 'tickets', endpoint: `${base}/tickets`, protocol: 'openai-object', headers: { 'X-Api-Key': TICKETS_SECRET } },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.details).toEqual([
      'headers.X-Api-Key looks like a credential and is never stored as a literal; use {"secret":"env:NAME"} (or {"secret":"file:/path"})',
    ]);
    expect(await stores.tools.getTool('tickets')).toBeNull();
  });

  it('references are resolved on the wire; the API shows references only; no API body and no log line holds a secret', async () => {
    const ref = { secret: 'env:HOOKS_SECRET_TICKETS_API_KEY' };
    const reg = await api('/api/tools', {
      method: 'POST',
      json: { name: 'tickets', endpoint: `${base}/tickets`, protocol: 'openai-object', headers: { 'X-Api-Key': ref } },
    });
    expect(reg.status).toBe(201);
    expect(reg.body.tool.headers).toEqual({ 'X-Api-Key': ref });
    const pets = await api('/api/tools', {
      method: 'POST',
      json: { name: 'pets', kind: 'openapi', endpoint: `${base}/pets`, injected: { 'X-Api-Key': { secret: 'env:HOOKS_SECRET_PETS_API_KEY' } } },
    });
    expect(pets.status).toBe(201);

    expect(
      (await api('/api/hooks', { method: 'POST', json: { name: 'open-ticket', topic: 'support', tool: 'tickets', tool_kwargs: { title: 't' } } })).status,
    ).toBe(201);
    expect(
      (
        await api('/api/hooks', {
          method: 'POST',
          json: { name: 'adopt', topic: 'support', tool: 'pets__create_pet', start_expr: { content: '{name: .pet}' } },
        })
      ).status,
    ).toBe(201);
    expect((await door('support', { pet: 'rex' })).body).toEqual({
      status: 'accepted',
      runs: 2,
      run_ids: [expect.any(String), expect.any(String)],
      event_id: expect.any(String),
    });

    const ticket = await runOf('open-ticket');
    const adopt = await runOf('adopt');
    expect([ticket.status, adopt.status]).toEqual(['succeeded', 'succeeded']);
    // On the wire: the secret values, resolved by the executor.
    expect(seen.find((s) => s.url === '/tickets')?.headers['x-api-key']).toBe(TICKETS_SECRET);
    expect(seen.find((s) => s.url === '/pets/pets')?.headers['x-api-key']).toBe(PETS_SECRET);

    const list = await api('/api/tools', { role: 'reader' });
    expect(list.body.registered.find((r: { name: string }) => r.name === 'tickets').headers).toEqual({ 'X-Api-Key': ref });
    expect((await api('/api/tools/tickets', { role: 'reader' })).body.record.headers).toEqual({ 'X-Api-Key': ref });
    expect((await api('/api/tools/pets', { role: 'reader' })).body.record.injected).toEqual({ 'X-Api-Key': { secret: 'env:HOOKS_SECRET_PETS_API_KEY' } });
    await api('/api/tools/pets__create_pet', { role: 'reader' });
    await api('/api/hooks', { role: 'reader' });

    expect(apiBodies.length).toBeGreaterThan(10);
    for (const body of apiBodies) for (const secret of SECRETS) expect(body.includes(secret)).toBe(false);
    expect(logLines.length).toBeGreaterThan(0);
    for (const line of logLines) for (const secret of SECRETS) expect(line.includes(secret)).toBe(false);
  });

  it('a reference that is not set fails the run internal, quoting the reference; nothing is sent', async () => {
    const before = seen.filter((s) => s.url === '/nokey').length;
    expect(
      (
        await api('/api/tools', {
          method: 'POST',
          json: { name: 'nokey', endpoint: `${base}/nokey`, protocol: 'openai', headers: { Authorization: { secret: 'env:HOOKS_SECRET_NOKEY_TOKEN' } } },
        })
      ).status,
    ).toBe(201);
    expect((await api('/api/hooks', { method: 'POST', json: { name: 'nokey-hook', topic: 'nokey', tool: 'nokey' } })).status).toBe(201);
    await door('nokey', {});
    const run = await runOf('nokey-hook');
    expect(run.status).toBe('failed');
    expect(run.error).toEqual({
      kind: 'internal',
      message: "tool 'nokey': headers.Authorization: secret reference env:HOOKS_SECRET_NOKEY_TOKEN is not set",
      retryable: true,
    });
    expect(seen.filter((s) => s.url === '/nokey').length).toBe(before);
  });

  it('a record kept with a literal credential (before references were required) is never echoed', async () => {
    const now = new Date().toISOString();
    await stores.tools.putTool({
      name: 'legacy',
      kind: 'http',
      endpoint: `${base}/legacy`,
      method: 'POST',
      protocol: 'openai',
      timeout_ms: 1000,
      headers: { Authorization: `Bearer ${LEGACY_SECRET}`, 'X-Client': 'hookyard' },
      body_properties: {},
      created_at: now,
      updated_at: now,
    });
    const one = await api('/api/tools/legacy', { role: 'reader' });
    expect(one.body.record.headers).toEqual({ Authorization: REDACTED, 'X-Client': 'hookyard' });
    const list = await api('/api/tools', { role: 'reader' });
    expect(list.body.registered.find((r: { name: string }) => r.name === 'legacy').headers.Authorization).toBe(REDACTED);
    for (const body of apiBodies) expect(body.includes(LEGACY_SECRET)).toBe(false);
  });
});

describe('secrets an upstream echoes are cut from what a run keeps', () => {
  it('a reader reads no secret in a run whose HTTP tool got it echoed back: result, history http body and headers, error (raw, base64, URL-encoded, cut short)', async () => {
    const ref = { secret: 'env:HOOKS_SECRET_ECHO_AUTH' };
    for (const name of ['reflect', 'reflect-fail']) {
      const reg = await api('/api/tools', { method: 'POST', json: { name, endpoint: `${base}/${name}`, protocol: 'openai', headers: { Authorization: ref } } });
      expect(reg.status).toBe(201);
      expect((await api('/api/hooks', { method: 'POST', json: { name: `${name}-hook`, topic: name, tool: name } })).status).toBe(201);
      await door(name, {});
    }
    const ok = await runOf('reflect-hook');
    const failed = await runOf('reflect-fail-hook');
    // The upstream did get the secret, and did echo it.
    expect(seen.filter((r) => r.url === '/reflect' || r.url === '/reflect-fail').map((r) => r.headers.authorization)).toEqual([ECHO_AUTH, ECHO_AUTH]);

    expect(ok.status).toBe('succeeded');
    expect(ok.result).toEqual({
      echo: { authorization: '[redacted]', base64: '[redacted]', url: '[redacted]' },
      pad: expect.any(String),
      straddle: '[redacted]',
    });
    expect(failed.status).toBe('failed');
    expect(failed.error).toEqual({
      kind: 'unauthorized',
      message: `tool 'reflect-fail' answered HTTP 401: ${JSON.stringify(JSON.stringify({ error: 'invalid_auth', got: '[redacted]', b64: '[redacted]' }))}`,
      retryable: false,
    });
    const okHttp = ok.history.map((h) => h.http).find((x) => x);
    expect(okHttp?.headers['x-echo']).toBe('[redacted]');
    expect(okHttp?.body_truncated).toBe(true);
    expect(okHttp?.body.endsWith('"straddle":"Bearer [redacted]')).toBe(true);

    // What a reader reads: the runs, their lists, the failures view.
    const texts: string[] = [];
    for (const run of [ok, failed]) texts.push((await api(`/api/hook-runs/${run.id}`, { role: 'reader' })).text);
    for (const hook of ['reflect-hook', 'reflect-fail-hook']) texts.push((await api(`/api/hook-runs?hook=${hook}`, { role: 'reader' })).text);
    texts.push((await api('/api/hook-runs/failures', { role: 'reader' })).text);
    expect(texts.join('').includes('[redacted]')).toBe(true);
    for (const text of texts) expect(holdsEcho(text)).toBe(false);
    for (const line of logLines) expect(holdsEcho(line)).toBe(false);
  });
});
