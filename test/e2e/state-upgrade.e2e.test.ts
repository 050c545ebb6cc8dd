/**
 * An ingress started on a Redis store written before declared states (hook
 * records with a subject and no attach path, state documents, no declaration
 * and no binding) upgrades it at start: its states are declared open, its
 * hooks bound to the whole document, and it says so in its log.
 */
import { randomBytes } from 'node:crypto';
import Redis from 'ioredis';
import { REDIS_URL, cleanupPrefix, uniquePrefix } from '../support/services';
import { eventually, requirePlatform, roleEnv, startListening, type RoleProcess } from '../support/processes';

jest.setTimeout(60_000);

describe('upgrade at start: free-form subject state', () => {
  const token = randomBytes(24).toString('hex');
  const prefix = uniquePrefix('e2eupgrade');
  let proc: RoleProcess | undefined;

  afterAll(async () => {
    await proc?.stop();
    await cleanupPrefix(prefix);
  });

  it('declares open the states kept and bound before, binds their hooks to the whole document and logs what it found', async () => {
    await requirePlatform();
    const admin = new Redis(REDIS_URL);
    try {
      // As the code before declared states kept them.
      const subject = { scope: 'github', kind: 'pull_request', key_expr: { content: '.pr' } };
      const at = '2026-01-01T00:00:00.000Z';
      const hook = { name: 'pr-checks', topic: 'checks', tool: 'state_merge', tool_kwargs: {}, subject, created_at: at, updated_at: at };
      await admin.hset(`{${prefix}}:hooks`, hook.name, JSON.stringify(hook));
      await admin.zadd(`{${prefix}}:topic:checks`, 0, hook.name);
      await admin.hset(`{${prefix}:st:acme:deploy}:doc:api`, {
        version: '1',
        document: '{"at":"v1"}',
        created_at: at,
        updated_at: at,
        updated_by: '{"door":"api","actor":"operator:x","hook":null}',
      });
      await admin.zadd(`{${prefix}:st:acme:deploy}:ix`, 0, 'api');
    } finally {
      admin.disconnect();
    }
    proc = await startListening('ingress', 'ingress', roleEnv(prefix, token));
    const get = async (path: string) => {
      const res = await fetch(`${proc!.url}${path}`, { headers: { authorization: `Bearer ${token}` } });
      return { status: res.status, body: (await res.json()) as Record<string, any> };
    };
    const logged = await eventually(async () => proc!.logs().find((l) => String(l.msg).startsWith('subject state upgraded')), 30_000, 'the upgrade log line');
    expect(logged).toMatchObject({ ran: true, bound: ['pr-checks'], declared: ['acme/deploy', 'github/pull_request'], refused: [] });
    expect((await get('/api/states/declarations/github/pull_request')).body).toMatchObject({ schema: {}, bound_by: [{ hook: 'pr-checks', attach: null }] });
    expect((await get('/api/states/declarations/acme/deploy')).body).toMatchObject({ schema: {}, bound_by: [] });
    expect((await get('/api/states/acme/deploy/api')).body).toMatchObject({ version: 1, document: { at: 'v1' } });
  });
});
