/**
 * Routes declared in @hookyard/api: every route the app registers is
 * declared or still on the shrinking list of undeclared ones; a declared
 * route's request is refused one line per bad field; and in test runs an
 * answer off its declared shape fails the request, so drift fails the test
 * that made it.
 */
import express from 'express';
import type { Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { API_ROUTES, SERVICE_ROUTES, answer, route } from '@hookyard/api';
import { silentLogger } from '@hookyard/core';
import { errorHandler } from '../src/api/errors';
import { mount } from '../src/api/declare';
import { buildOpenApiDocument } from '../src/openapi';
import { startHarness, type Harness } from './support/harness';

const OPENAPI_DOCUMENT = buildOpenApiDocument();

/** Every `METHOD path` the app registers, walking mounted routers (express 5 / router 2 layers). */
function registered(app: any): string[] {
  const out: string[] = [];
  const walk = (stack: any[], prefix: string) => {
    for (const layer of stack) {
      const raw = typeof layer.rawPath === 'string' ? layer.rawPath : '';
      if (layer.route) {
        for (const [m, on] of Object.entries(layer.route.methods as Record<string, boolean>))
          if (on) out.push(`${m === '_all' ? 'ALL' : m.toUpperCase()} ${prefix}${layer.route.path as string}`);
      } else if (layer.handle?.stack) walk(layer.handle.stack, prefix + (raw === '/' ? '' : raw));
    }
  };
  walk(app.router.stack, '');
  return out;
}

describe('declared routes', () => {
  let h: Harness;
  beforeAll(async () => {
    h = await startHarness();
  });
  afterAll(async () => {
    await h.close();
  });

  it('every registered route is declared, and every declared route is registered (the door and /mcp are answered before express)', () => {
    const decls = [...API_ROUTES, ...SERVICE_ROUTES];
    const declared = new Set(decls.filter((d) => !d.beforeExpress).map((d) => `${d.method} ${d.base ?? '/api'}${d.path}`));
    const routes = registered(h.app);
    const covered = (r: string) => declared.has(r) || (r.startsWith('ALL ') && [...declared].some((d) => d.endsWith(` ${r.slice(4)}`)));
    expect(routes.filter((r) => !covered(r))).toEqual([]);
    expect([...declared].filter((d) => !routes.includes(d) && !routes.includes(`ALL ${d.slice(d.indexOf(' ') + 1)}`))).toEqual([]);
    expect(new Set(decls.map((d) => `${d.method} ${d.base ?? '/api'}${d.path}`)).size).toBe(decls.length);
  });

  it('refuses a declared body one line per bad field, naming it', async () => {
    const r = await h.call('/api/jq-templates/jq/x', { method: 'PUT', role: 'operator', json: { content: '  ', extra: 1, description: 7 } });
    expect(r.status).toBe(400);
    expect(r.body.error.message).toBe('template refused');
    expect(r.body.error.details).toEqual(["unknown field 'extra'", 'description must be a string', 'content must be a non-empty string of jq']);
    const notObject = await h.call('/api/jq-templates/jq/x', { method: 'PUT', role: 'operator', json: [1] });
    expect([notObject.status, notObject.body.error.details]).toEqual([400, ['the body must be a JSON object']]);
  });

  it('refuses a declared query as the route always did: unknown parameters first, listing the known ones, then each bad value quoted (GET /api/events)', async () => {
    const r = await h.call('/api/events?y=1&status=failed&status=x&topic=UP&event=', { role: 'reader' });
    expect([r.status, r.body.error.message]).toEqual([400, 'bad event stream query']);
    expect(r.body.error.details).toEqual([
      "unknown query parameter 'y' (known: hook, topic, status, event)",
      'topic must match ^[a-z0-9][a-z0-9_-]*$, got "UP"',
      'status must be one of pending|running|retry_wait|parked|succeeded|skipped|denied|cancelled|failed|discarded, got ["failed","x"]',
      'event must be one or more (comma-separated) of accepted|started|parked|retry_scheduled|finished|retried|discarded|woken, got ""',
    ]);
  });

  it('checks what the handlers used to check themselves from the declarations: a query read as integers and given once, hook or agent, unknown parameters, enums', async () => {
    // A query's whole numbers are read from its text (and quoted as sent); a parameter given twice is said so.
    const twice = await h.call('/api/interactions?limit=2&limit=3&limit=x', { role: 'reader' });
    expect([twice.status, twice.body.error.message, twice.body.error.details]).toEqual([
      400,
      'bad interaction list query',
      ['limit must be given once, got ["2","3","x"]'],
    ]);
    expect((await h.call('/api/interactions?limit=2', { role: 'reader' })).status).toBe(200);
    // Hook and agent exclude each other in the schema (not), in a query and in a bulk call's filter alike.
    const both = await h.call('/api/hook-runs/failures?hook=a&agent=b', { role: 'reader' });
    expect([both.status, both.body.error.details]).toEqual([400, ['give hook or agent, not both: an agent call is not a hook run']]);
    const bulk = await h.call('/api/hook-runs/discard', { method: 'POST', role: 'operator', json: { filter: { status: 'failed', hook: 'a', agent: 'b' } } });
    expect([bulk.status, bulk.body.error.details]).toEqual([400, ['give hook or agent, not both: an agent call is not a hook run']]);
    // Routes that took any query now refuse what they do not know, and an enum is the declaration's.
    const unrouted = await h.call('/api/unrouted?x=1', { role: 'reader' });
    expect([unrouted.status, unrouted.body.error.message]).toEqual([400, 'GET /api/unrouted takes no query parameters']);
    const discover = await h.call('/api/tools?discover=maybe', {
      method: 'POST',
      role: 'admin',
      json: { name: 'x', kind: 'http', url: 'http://127.0.0.1:1/x' },
    });
    expect([discover.status, discover.body.error.details]).toEqual([400, ['discover must be true or false, got "maybe"']]);
  });

  it("answers a path parameter off its declared pattern with the declaration's 404", async () => {
    const r = await h.call('/api/jq-templates/Bad%20Id', { role: 'reader' });
    expect(r.status).toBe(404);
    expect(r.body.error.message).toMatch(/^no stored template "Bad Id" \(ids match /);
  });

  it('answers an agent name off the name pattern with the 404 of an unknown agent (read, revoke, rotate)', async () => {
    for (const [method, path] of [
      ['GET', '/api/agents/Bad%20Bot'],
      ['DELETE', '/api/agents/Bad%20Bot'],
      ['POST', '/api/agents/Bad%20Bot/rotate'],
    ] as const) {
      const r = await h.call(path, { method, role: 'admin' });
      expect([method, r.status, r.body.error.message]).toEqual([method, 404, 'no agent named "Bad Bot"']);
    }
  });

  it('fails an answer off its declared shape when answers are validated (the harness turns it on)', async () => {
    const decl = route({
      method: 'GET',
      path: '/drift',
      role: 'reader',
      operationId: 'drift',
      tag: 'test',
      summary: 'drift',
      // A plain JSON Schema (what a TypeBox schema is), so this test needs no TypeBox of its own.
      answers: { 200: answer('ok', { type: 'object', required: ['n'], properties: { n: { type: 'integer' } }, additionalProperties: false } as never) },
    });
    const app = express();
    app.use((_req, res, next) => {
      res.locals.role = 'admin';
      next();
    });
    const router = express.Router();
    let body: unknown = { n: 1 };
    mount(router, decl, (_req, res) => res.json(body), { validateAnswers: true });
    app.use(router);
    app.use(errorHandler(silentLogger()));
    const server: Server = await new Promise((r) => {
      const s = app.listen(0, '127.0.0.1', () => r(s));
    });
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/drift`;
      expect((await fetch(url)).status).toBe(200);
      body = { n: 'one' };
      expect((await fetch(url)).status).toBe(500);
      body = { n: 1, extra: true };
      expect((await fetch(url)).status).toBe(500);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });

  it('generates the runs routes from their declarations: audit actions, the event stream as text/event-stream of RunEvent, an optional replay body', () => {
    const paths = OPENAPI_DOCUMENT.paths as Record<string, Record<string, any>>;
    expect(paths['/api/hook-runs/{id}/retry']!.post['x-hookyard-audit']).toBe('run.retry');
    expect(paths['/api/hook-runs/discard']!.post['x-hookyard-audit']).toBe('runs.bulk_discard');
    expect(paths['/api/events']!.get.responses['200'].content).toEqual({ 'text/event-stream': { schema: { $ref: '#/components/schemas/RunEvent' } } });
    expect(paths['/api/hook-runs/{id}/replay']!.post.requestBody.required).toBe(false);
    expect(Object.keys((OPENAPI_DOCUMENT.components as any).schemas)).toEqual(expect.arrayContaining(['Run', 'Attempt', 'RunEvent', 'BulkAnswer']));
  });

  it('generates the routes outside /api from their declarations: open routes with security [] and their own refusals, any body at the door, HTML links, text metrics, /mcp on the agent token', () => {
    const paths = OPENAPI_DOCUMENT.paths as Record<string, Record<string, any>>;
    const door = paths['/universal_webhook/{topic}']!.post;
    expect(door.security).toEqual([]);
    expect(door.requestBody).toEqual({ required: false, content: { '*/*': { schema: {} } } });
    expect(door.responses['401'].content['application/json'].schema).toEqual({ $ref: '#/components/schemas/DoorError' });
    expect(door.responses['429'].headers).toEqual({ 'Retry-After': { schema: { type: 'integer' } } });
    expect(door['x-hookyard-role']).toBeUndefined();
    expect(Object.keys(paths['/approvals/{id}/deny']!.post.responses['200'].content)).toEqual(['text/html']);
    expect(paths['/approvals/{id}/deny']!.post.requestBody.content).toHaveProperty('application/x-www-form-urlencoded');
    expect(Object.keys(paths['/metrics']!.get.responses['200'].content)).toEqual(['text/plain']);
    expect(paths['/mcp']!.post.security).toEqual([{ agentToken: [] }]);
    expect(Object.keys(paths['/mcp']!)).toEqual(['post', 'get', 'delete']);
    const components = OPENAPI_DOCUMENT.components as any;
    expect(Object.keys(components.responses)).toEqual(['E400', 'E401', 'E403', 'E404', 'E409', 'E503', 'E429', 'E500']);
    expect(components.schemas.Error.properties.error.required).toEqual(['kind', 'message']);
  });

  it('checks a declared answer with a nullable enum and ISO times (an audit entry of a signed link has no role)', async () => {
    const { listAudit } = await import('@hookyard/api');
    const app = express();
    app.use((_req, res, next) => {
      res.locals.role = 'admin';
      next();
    });
    const router = express.Router();
    const entry = {
      id: '0000000000000000000000',
      at: '2026-01-31T12:00:00.000Z',
      actor: { kind: 'link', role: null, label: 'link:abc' },
      action: 'interaction.deny',
      target: 'abc',
      client: '127.0.0.1',
      status: 200,
      request: { method: 'POST', path: '/approvals/abc/deny' },
    };
    let at = entry.at;
    mount(
      router,
      listAudit,
      (_req, res) => res.json({ entries: [{ ...entry, at }], next_cursor: null, retention_days: 90, max_entries: 10, max_refused: 10 }),
      { validateAnswers: true },
    );
    app.use('/api', router);
    app.use(errorHandler(silentLogger()));
    const server: Server = await new Promise((r) => {
      const s = app.listen(0, '127.0.0.1', () => r(s));
    });
    try {
      const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}/api/audit`;
      expect((await fetch(url)).status).toBe(200);
      at = 'yesterday';
      expect((await fetch(url)).status).toBe(500);
    } finally {
      server.closeAllConnections();
      await new Promise((r) => server.close(r));
    }
  });
});
