/**
 * docs/openapi.json against the app: every route the ingress registers is
 * documented and every documented operation is a registered route (both
 * directions), the document is valid OpenAPI and served without a token at
 * GET /openapi.json, and real error bodies fit the documented error schema.
 */
import { readFileSync } from 'node:fs';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { join } from 'node:path';
import { createMetrics, loadSettings, silentLogger } from '@hookyard/core';
import { createMemoryBus } from '@hookyard/bus';
import type { JqEngine } from '@hookyard/jq';
import { createMemoryStores } from '@hookyard/store';
import { createToolRepo } from '@hookyard/tools';
import { createIngressApp } from '../../services/ingress/src/start';
import { buildOpenApiDocument } from '../../services/ingress/src/openapi';

const OPENAPI_DOCUMENT = buildOpenApiDocument();

// eslint-disable-next-line @typescript-eslint/no-require-imports
const SwaggerParser = require('@apidevtools/swagger-parser') as { validate(doc: unknown): Promise<unknown> };

const DOC_PATH = join(__dirname, '..', '..', 'docs', 'openapi.json');
const REGENERATE = `pnpm build && node -e "process.stdout.write(JSON.stringify(require('./services/ingress/dist/openapi').buildOpenApiDocument(), null, 2) + '\\n')" > docs/openapi.json`;
const METHODS = ['get', 'put', 'post', 'delete', 'patch', 'options', 'head'];
const TOKEN = 'admin-token-for-the-openapi-test-0123';

type Doc = any;
const doc: Doc = JSON.parse(readFileSync(DOC_PATH, 'utf8'));

function buildApp() {
  const settings = loadSettings({ HOOKS_API_TOKENS: `admin:${TOKEN}` });
  const stores = createMemoryStores();
  const logger = silentLogger();
  // Routes are only walked and a few errors asked for: nothing here evaluates jq.
  const jq = {} as JqEngine;
  return createIngressApp({
    // Every answer of a declared route is held to its declared shape: drift fails the test that made it.
    validateAnswers: true,
    settings,
    stores,
    bus: createMemoryBus(),
    jq,
    tools: createToolRepo({ settings, toolStore: stores.tools, logger }),
    metrics: createMetrics({ defaultMetrics: false }),
    logger,
    limiter: null,
  });
}

/** Express path -> OpenAPI path: `:name` and `*name` become `{name}`. */
function toOpenApi(path: string): string {
  return path.replace(/[:*]([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

/** Every method+path the app registers, walking mounted routers (express 5 / router 2 layers). */
function routes(app: unknown): Map<string, Set<string>> {
  const out = new Map<string, Set<string>>();
  const walk = (stack: any[], prefix: string) => {
    for (const layer of stack) {
      const raw = typeof layer.rawPath === 'string' ? layer.rawPath : '';
      if (layer.route) {
        const path = toOpenApi(prefix + layer.route.path);
        const set = out.get(path) ?? new Set<string>();
        for (const [m, on] of Object.entries(layer.route.methods as Record<string, boolean>)) if (on) set.add(m === '_all' ? '*' : m);
        out.set(path, set);
      } else if (layer.handle?.stack) {
        walk(layer.handle.stack, prefix + (raw === '/' ? '' : raw));
      }
    }
  };
  walk((app as any).router.stack, '');
  return out;
}

/**
 * The public door is taken off at the app's entry, before express routes
 * (for speed), so it is not in the router: it counts as registered, for every
 * method (it answers 405 itself), when a POST to it answers as the door does.
 */
async function doorServed(base: string): Promise<boolean> {
  const res = await fetch(`${base}/universal_webhook/openapi-probe`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  const body = (await res.json()) as { status?: string; runs?: number; unrouted?: boolean };
  return res.status === 200 && body.status === 'accepted' && body.runs === 0 && body.unrouted === true;
}

/** The agent door is taken off at the app's entry too (agent/mcp-mount.ts): served when a call without a token is its 401. */
async function mcpServed(base: string): Promise<boolean> {
  const res = await fetch(`${base}/mcp`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  await res.arrayBuffer();
  return res.status === 401 && /^Bearer/.test(res.headers.get('www-authenticate') ?? '');
}

describe('docs/openapi.json', () => {
  const app = buildApp();
  let registered: Map<string, Set<string>>;
  let server: Server;
  let base: string;

  beforeAll(async () => {
    server = app.listen(0, '127.0.0.1');
    await new Promise<void>((r) => server.once('listening', () => r()));
    base = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
    registered = routes(app);
    if (await doorServed(base)) registered.set('/universal_webhook/{topic}', new Set([...(registered.get('/universal_webhook/{topic}') ?? []), '*']));
    if (await mcpServed(base)) registered.set('/mcp', new Set([...(registered.get('/mcp') ?? []), '*']));
  });

  afterAll(async () => {
    server.closeAllConnections();
    await new Promise((r) => server.close(r));
  });

  it('is the document the ingress serves (regenerate with the command in the message)', () => {
    expect({ regenerate: REGENERATE, equal: JSON.stringify(doc) === JSON.stringify(OPENAPI_DOCUMENT) }).toEqual({ regenerate: REGENERATE, equal: true });
  });

  it('is valid OpenAPI 3.0', async () => {
    await expect(SwaggerParser.validate(JSON.parse(JSON.stringify(doc)))).resolves.toBeDefined();
    expect(doc.openapi).toMatch(/^3\.0\./);
  });

  it('walks a plausible route table (the walk itself works)', () => {
    expect(registered.size).toBeGreaterThanOrEqual(15);
    expect(registered.get('/universal_webhook/{topic}')).toEqual(new Set(['*']));
    expect(registered.get('/api/hooks')).toEqual(new Set(['get', 'post']));
  });

  it('documents every registered route', () => {
    const missing: string[] = [];
    for (const [path, methods] of registered) {
      const item = doc.paths[path];
      if (!item) {
        missing.push(`${[...methods].join(',')} ${path}`);
        continue;
      }
      for (const m of methods) {
        if (m === '*') {
          if (!item.post) missing.push(`POST ${path} (route takes every method)`);
        } else if (!item[m]) missing.push(`${m.toUpperCase()} ${path}`);
      }
    }
    expect(missing).toEqual([]);
  });

  it('documents only registered routes', () => {
    const extra: string[] = [];
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, unknown>>)) {
      const methods = registered.get(path);
      for (const m of METHODS.filter((x) => item[x])) if (!methods || !(methods.has(m) || methods.has('*'))) extra.push(`${m.toUpperCase()} ${path}`);
    }
    expect(extra).toEqual([]);
  });

  it('covers the compat routes of the design', () => {
    const ops = Object.entries(doc.paths as Record<string, Record<string, unknown>>).flatMap(([p, item]) =>
      METHODS.filter((m) => item[m]).map((m) => `${m.toUpperCase()} ${p}`),
    );
    expect(ops).toEqual(
      expect.arrayContaining([
        'POST /universal_webhook/{topic}',
        'GET /api/hooks',
        'POST /api/hooks',
        'DELETE /api/hooks/{name}',
        'PUT /api/hooks/topics/{topic}/verifier',
        'DELETE /api/hooks/topics/{topic}/verifier',
        'GET /api/hook-runs',
        'POST /api/hook-runs/{id}/retry',
        'DELETE /api/hook-runs/{id}',
      ]),
    );
  });

  it('marks management routes as needing the bearer token and ops routes as open', () => {
    expect(doc.security).toEqual([{ bearerAuth: [] }]);
    expect(doc.components.securitySchemes.bearerAuth).toMatchObject({ type: 'http', scheme: 'bearer' });
    for (const [path, item] of Object.entries(doc.paths as Record<string, Record<string, { security?: unknown }>>)) {
      for (const m of METHODS.filter((x) => item[x])) {
        expect({ op: `${m} ${path}`, open: item[m]!.security !== undefined }).toEqual({ op: `${m} ${path}`, open: !path.startsWith('/api/') });
      }
    }
  });

  describe('served by the app', () => {
    it('answers GET /openapi.json without a token', async () => {
      const res = await fetch(`${base}/openapi.json`);
      expect(res.status).toBe(200);
      expect(res.headers.get('content-type')).toMatch(/^application\/json/);
      expect(await res.json()).toEqual(doc);
    });

    it('answers management errors in the documented error shape', async () => {
      const shape = doc.components.schemas.Error.properties.error;
      /** The documented error shape, checked key by key (kind from the documented enum). */
      const misses = (body: { error?: Record<string, unknown> }): string[] => {
        const e = body.error;
        if (!e || typeof e !== 'object') return ['no error object'];
        const out: string[] = [];
        for (const k of shape.required as string[]) if (!(k in e)) out.push(`missing ${k}`);
        for (const k of Object.keys(e)) if (!(k in shape.properties)) out.push(`undocumented ${k}`);
        if (!(shape.properties.kind.enum as string[]).includes(e.kind as string)) out.push(`kind ${String(e.kind)} not documented`);
        if (typeof e.message !== 'string') out.push('message not a string');
        if (e.details !== undefined && !(Array.isArray(e.details) && e.details.every((d) => typeof d === 'string'))) out.push('details not string lines');
        return out;
      };
      const noToken = await fetch(`${base}/api/hooks`);
      const notFound = await fetch(`${base}/api/hooks/ghost`, { headers: { authorization: `Bearer ${TOKEN}` } });
      const refused = await fetch(`${base}/api/hooks`, {
        method: 'POST',
        headers: { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' },
        body: JSON.stringify({ name: 'Bad Name', topic: 't', tool: 'ghost' }),
      });
      for (const [res, status] of [
        [noToken, 401],
        [notFound, 404],
        [refused, 400],
      ] as const) {
        expect(res.status).toBe(status);
        const body = (await res.json()) as { error?: Record<string, unknown> };
        expect({ status, misses: misses(body) }).toEqual({ status, misses: [] });
        if (status === 400) expect(body.error!.details).toEqual(expect.arrayContaining([expect.stringMatching(/^name "Bad Name" must match/)]));
      }
    });
  });
});
