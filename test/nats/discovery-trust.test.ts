/**
 * Discovery names, never carries, a record. A NATS client that can publish on
 * `<prefix>.discovery.request` used to hand an executor any record: the
 * executor fetched the URL the client chose, with the record's secret
 * headers resolved, and answered with what it found. Now a request names a
 * registered tool (or a pending registration `POST /api/tools` wrote to the
 * store): a request carrying a record is refused and nothing is dialled, an
 * unregistered name is `not_found`, and registration still discovers through
 * the real requester and responder.
 */
import { promisify } from 'node:util';
import { gunzip } from 'node:zlib';
import { loadSettings, silentLogger, createSecretResolver, type Logger } from '@hookyard/core';
import { createDiscoveryRequester, createDiscoveryResponder, discoverySubject, type DiscoveryRequester, type DiscoveryResponder } from '@hookyard/bus';
import { createMemoryStores, type Stores } from '@hookyard/store';
import { CatalogueRepo, createDiscoveryAnswer, createToolRepo, validateToolRecord, type ClosableToolRepo } from '@hookyard/tools';
import { startMockServer, type MockServer } from '../support/http-recorder';
import { LOOPBACK_NETS, setupNats, type NatsSetup } from '../support/services';

const gunzipAsync = promisify(gunzip);
const BOT_TOKEN = 'xoxb-the-bot-token-nobody-may-see';
const PETS = JSON.stringify({
  openapi: '3.0.3',
  info: { title: 'pets', version: '1' },
  paths: { '/pets': { get: { operationId: 'listPets', responses: { '200': { description: 'ok' } } } } },
});

/** Every warning the executor logs, as (fields, message). */
const warnings: Array<{ fields: unknown; msg: unknown }> = [];
function recordingLogger(): Logger {
  const base = silentLogger();
  const logger: Logger = Object.assign(Object.create(base) as Logger, {
    warn: (fields: unknown, msg?: unknown) => void warnings.push({ fields, msg }),
    child: () => logger,
  });
  return logger;
}

let nats: NatsSetup;
let listener: MockServer;
let stores: Stores;
let tools: ClosableToolRepo;
let responder: DiscoveryResponder;
let requester: DiscoveryRequester;

beforeAll(async () => {
  nats = await setupNats('disc');
  listener = await startMockServer(() => ({ body: PETS }));
  stores = createMemoryStores();
  // The executor may reach loopback here, so only the protocol stands between a NATS client and the listener.
  const settings = loadSettings({}, { outboundAllowNets: LOOPBACK_NETS });
  const secrets = createSecretResolver({ env: { HOOKS_SECRET_BOT_TOKEN: BOT_TOKEN } });
  tools = createToolRepo({ settings, toolStore: stores.tools, logger: silentLogger(), secrets, recordDiscovery: false });
  const answer = createDiscoveryAnswer({ repo: tools, toolStore: stores.tools, logger: recordingLogger() });
  responder = await createDiscoveryResponder({ url: nats.url, prefix: nats.prefix }, answer);
  requester = await createDiscoveryRequester({ url: nats.url, prefix: nats.prefix });
});
afterAll(async () => {
  await requester?.close();
  await responder?.close();
  await tools?.close();
  await listener?.close();
  await nats?.close();
});

/** A raw NATS client's request on the discovery subject, and the executor's answer decoded. */
async function rawRequest(body: unknown): Promise<any> {
  const reply = await nats.nc.request(discoverySubject(nats.prefix), JSON.stringify(body), { timeout: 10_000 });
  const text = reply.headers?.get('Hookyard-Encoding') === 'gzip' ? (await gunzipAsync(reply.data)).toString('utf8') : reply.string();
  return JSON.parse(text);
}

describe('discovery requests over NATS', () => {
  it('a request carrying a record is refused: the listener it points at receives nothing, no secret leaves', async () => {
    warnings.length = 0;
    const answer = await rawRequest({
      op: 'discover',
      record: {
        name: 'evil',
        kind: 'openapi',
        endpoint: `${listener.url}/steal`,
        headers: { Authorization: { secret: 'env:HOOKS_SECRET_BOT_TOKEN' } },
      },
    });
    expect(answer).toMatchObject({ ok: false, error: { kind: 'forbidden', message: expect.stringContaining('never carries a record') } });
    expect(JSON.stringify(answer)).not.toContain('openapi');
    expect(listener.seen).toEqual([]);
    expect(warnings).toEqual([{ fields: { keys: ['op', 'record'] }, msg: 'discovery request refused: it carries a record' }]);
  });

  it('a request naming an unregistered tool is answered not_found, and nothing is dialled', async () => {
    expect(await rawRequest({ op: 'discover', name: 'ghost' })).toMatchObject({
      ok: false,
      error: { kind: 'not_found', message: "tool 'ghost' is not a registered tool service" },
    });
    expect(await rawRequest({ op: 'discover', pending: 'AAAAAAAAAAAAAAAAAAAAAA' })).toMatchObject({ ok: false, error: { kind: 'not_found' } });
    expect(listener.seen).toEqual([]);
  });

  it('registration discovers through the real requester and responder: a pending record the store holds, taken once', async () => {
    const catalogue = new CatalogueRepo({ ask: (r, ms) => requester.ask(r, ms), timeoutMs: 10_000, toolStore: stores.tools, logger: silentLogger() });
    // Validated as POST /api/tools validates it (the only way a record enters the store).
    const checked = validateToolRecord(
      { name: 'pets', kind: 'openapi', endpoint: listener.url, headers: { Authorization: { secret: 'env:HOOKS_SECRET_BOT_TOKEN' } } },
      new Date(),
    );
    if (!checked.ok) throw new Error(checked.errors.join('; '));
    const record = checked.record;
    expect(await catalogue.discoverRecord(record)).toEqual(['pets__list_pets']);
    // The secret went to the endpoint of the record the admin registered, and only there.
    expect(listener.seen.map((r) => [r.url, r.headers.authorization])).toEqual([['/openapi.json', BOT_TOKEN]]);
    // Nothing was stored by discovering, and the pending record is gone: naming it again finds nothing.
    expect(await stores.tools.listTools()).toEqual([]);
    await stores.tools.putTool(record);
    expect(await rawRequest({ op: 'discover', name: 'pets' })).toEqual({ ok: true, tools: ['pets__list_pets'] });
  });
});
