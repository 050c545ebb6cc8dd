import { createConnection, createServer, type Server } from 'node:net';
import { HookyardError, loadSettings, silentLogger } from '@hookyard/core';
import { createMemoryStores } from '@hookyard/store';
import { createToolRepo } from '../../src/create-tool-repo';
import { createGrpcProvider } from '../../src/grpc';
import { createOutboundGuard, type OutboundGuard } from '../../src/outbound';
import { ProviderRepo } from '../../src/provider/provider-repo';
import { testContext } from '../support/context';
import { LOOPBACK_GUARD, grpcRecord } from './records';
import { CATALOG_PROTO_TEXT, startCatalogServer, type TestServer } from './server';

/**
 * gRPC calls and reflection go through the outbound guard like HTTP: the
 * channel's host is resolved and checked before it dials, and the channel
 * dials the checked address. A loopback server is refused unless
 * HOOKS_OUTBOUND_ALLOW_NETS allows it, the refusal names the address and is
 * `forbidden` + `notSent`, and nothing reaches the server.
 */
let server: TestServer;
/** A TCP relay in front of the gRPC server that counts the connections made to it. */
let relay: Server;
let relayPort = 0;
let connections = 0;
const repos: ProviderRepo[] = [];
const guards: OutboundGuard[] = [];

beforeAll(async () => {
  server = await startCatalogServer();
  relay = createServer((socket) => {
    connections++;
    const upstream = createConnection(server.port, '127.0.0.1');
    socket.pipe(upstream).pipe(socket);
    socket.on('error', () => upstream.destroy());
    upstream.on('error', () => socket.destroy());
  });
  await new Promise<void>((resolve) => relay.listen(0, '127.0.0.1', resolve));
  relayPort = (relay.address() as { port: number }).port;
});
beforeEach(() => {
  connections = 0;
});
afterAll(async () => {
  await Promise.all(repos.map((r) => r.close()));
  await Promise.all(guards.map((g) => g.close()));
  relay.close();
  await server.close();
});

/** ProviderRepo over the gRPC provider with `guard`, or with the provider's default guard (public addresses only). */
function repo(endpoint: string, guard?: OutboundGuard, extra: Record<string, unknown> = {}): ProviderRepo {
  const records = [grpcRecord('shop', endpoint, extra)];
  const r = new ProviderRepo({
    toolStore: { listTools: async () => records, getTool: async (name) => records.find((x) => x.name === name) ?? null },
    logger: silentLogger(),
    providers: [createGrpcProvider({ logger: silentLogger(), ...(guard ? { guard } : {}) })],
  });
  repos.push(r);
  return r;
}

function guardWith(allowNets: string[], names: Record<string, string>): OutboundGuard {
  const g = createOutboundGuard({
    allowNets,
    lookup: async (host) => {
      const address = names[host];
      if (!address) throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
      return [{ address, family: address.includes(':') ? 6 : 4 }];
    },
  });
  guards.push(g);
  return g;
}

async function refusal(p: Promise<unknown>): Promise<HookyardError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HookyardError);
  return err as HookyardError;
}

describe('gRPC behind the outbound guard', () => {
  test('reflection of a loopback server is refused by default, naming the address; nothing reaches it', async () => {
    const e = await refusal(repo(`grpc://127.0.0.1:${relayPort}`).discoverRecord(grpcRecord('shop', `grpc://127.0.0.1:${relayPort}`)));
    expect([e.kind, e.notSent]).toEqual(['forbidden', true]);
    expect(e.message).toContain('127.0.0.1 is a loopback address (allow a range with HOOKS_OUTBOUND_ALLOW_NETS)');
    expect(connections).toBe(0);
  });

  test('a call to a loopback server (methods from a .proto, no reflection) is refused forbidden and notSent; nothing reaches it', async () => {
    const r = repo(`grpc://127.0.0.1:${relayPort}`, undefined, { proto: CATALOG_PROTO_TEXT });
    const e = await refusal(r.exec('shop__create_item', { item: { name: 'lamp' } }, testContext()));
    expect([e.kind, e.notSent]).toEqual(['forbidden', true]);
    expect(e.message).toContain('127.0.0.1 is a loopback address');
    expect(connections).toBe(0);
    expect(server.lastMetadata).toBeUndefined();
  });

  test('a name that resolves to loopback, or to cloud metadata, is refused naming the name and the address', async () => {
    const g = guardWith([], { 'shop.internal.example': '127.0.0.1', 'meta.example': '169.254.169.254' });
    const e = await refusal(
      repo(`grpc://shop.internal.example:${relayPort}`, g).discoverRecord(grpcRecord('shop', `grpc://shop.internal.example:${relayPort}`)),
    );
    expect([e.kind, e.notSent]).toEqual(['forbidden', true]);
    expect(e.message).toContain('shop.internal.example resolves to 127.0.0.1 is a loopback address');
    const m = await refusal(repo(`grpc://meta.example:${relayPort}`, g, { proto: CATALOG_PROTO_TEXT }).exec('shop__create_item', { item: {} }, testContext()));
    expect([m.kind, m.notSent]).toEqual(['forbidden', true]);
    expect(m.message).toContain('169.254.169.254 is a linkLocal address');
    expect(connections).toBe(0);
  });

  test('with the range allowed, reflection and calls reach it', async () => {
    const r = repo(`grpc://127.0.0.1:${relayPort}`, LOOPBACK_GUARD);
    const out = (await r.exec('shop__create_item', { item: { name: 'lamp' } }, testContext())) as { id: string };
    expect(out.id).toBe('item-lamp');
    expect(connections).toBeGreaterThan(0);
  });

  test('the channel dials the checked address, not the name again (a name only the guard resolves still works)', async () => {
    // `.test` never resolves in real DNS: only the guard's lookup knows it, so grpc-js cannot have looked it up itself.
    const g = guardWith(['127.0.0.0/8'], { 'catalog.test': '127.0.0.1' });
    const r = repo(`grpc://catalog.test:${relayPort}`, g);
    const out = (await r.exec('shop__create_item', { item: { name: 'desk' } }, testContext())) as { id: string };
    expect(out.id).toBe('item-desk');
    expect(server.lastMetadata).toBeDefined();
  });

  test('the composed repo applies HOOKS_OUTBOUND_ALLOW_NETS to gRPC records', async () => {
    for (const [env, reached] of [
      [{}, false],
      [{ HOOKS_OUTBOUND_ALLOW_NETS: '127.0.0.0/8' }, true],
    ] as const) {
      const stores = createMemoryStores();
      await stores.tools.putTool(grpcRecord('shop', `grpc://127.0.0.1:${relayPort}`));
      const tools = createToolRepo({ settings: loadSettings(env), toolStore: stores.tools, logger: silentLogger() });
      try {
        const got = await tools.exec('shop__create_item', { item: { name: 'x' } }, testContext()).then(
          () => 'ok',
          (e: HookyardError) => `${e.kind}:${e.message}`,
        );
        if (reached) expect(got).toBe('ok');
        else {
          // Reflection refused, so the method is not found; nothing reached the server.
          expect(got).toMatch(/^not_found:|^forbidden:/);
          expect(connections).toBe(0);
        }
      } finally {
        await tools.close();
      }
    }
  });
});
