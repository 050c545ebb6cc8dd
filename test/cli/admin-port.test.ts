import { eventually, requireBuiltCli, startRole, type RoleProcess } from '../support/processes';
import { lines, runCli } from './support';

/**
 * HOOKS_ADMIN_PORT: the ingress serves the public door (and approval links and
 * probes) on HOOKS_HTTP_PORT, and the management API, /metrics, /openapi.json
 * and the console on the admin port; each port answers 404 for the other's routes.
 */
const ADMIN = 'admin-port-test-admin-token-012345';
let server: RoleProcess;
let door = '';
let admin = '';

beforeAll(async () => {
  requireBuiltCli();
  server = startRole('admin-port', 'all', { HOOKS_API_TOKENS: `admin:${ADMIN}`, HOOKS_ADMIN_PORT: '0', HOOKS_DOOR_RATE: '0' });
  door = await server.waitListening();
  admin = String((await eventually(async () => server.logs().find((l) => typeof l.adminUrl === 'string'), 5_000, 'the admin url')).adminUrl);
});

afterAll(async () => {
  await server?.stop();
});

async function get(base: string, path: string, init: RequestInit = {}): Promise<{ status: number; text: string }> {
  const res = await fetch(`${base}${path}`, { ...init, headers: { authorization: `Bearer ${ADMIN}`, ...(init.headers as Record<string, string>) } });
  return { status: res.status, text: await res.text() };
}

it('listens on two ports', () => {
  expect(admin).not.toBe(door);
  expect(new URL(admin).port).not.toBe(new URL(door).port);
});

it('the public port: the door, the probes and the icon; no management API, /metrics or console', async () => {
  const post = await get(door, '/universal_webhook/ap-demo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  expect(post.status).toBe(200);
  expect(JSON.parse(post.text)).toMatchObject({ status: 'accepted' });
  for (const p of ['/healthz', '/readyz', '/favicon.ico']) expect((await get(door, p)).status).toBe(200);
  for (const p of ['/api/hooks', '/metrics', '/openapi.json', '/console/']) {
    const r = await get(door, p);
    expect({ p, status: r.status }).toEqual({ p, status: 404 });
    expect(JSON.parse(r.text).error.message).toBe(`no route GET ${p} on this port (the management API, /metrics and the console listen on HOOKS_ADMIN_PORT)`);
  }
});

it('the admin port: the management API, /metrics and the probes; no door', async () => {
  expect((await get(admin, '/api/hooks')).status).toBe(200);
  const metrics = await get(admin, '/metrics');
  expect(metrics.status).toBe(200);
  expect(metrics.text).toContain('tai42_hook_runs_accepted_total');
  for (const p of ['/healthz', '/readyz', '/favicon.ico']) expect((await get(admin, p)).status).toBe(200);
  const post = await get(admin, '/universal_webhook/ap-demo', { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{}' });
  expect(post.status).toBe(404);
  expect(JSON.parse(post.text).error.message).toBe('no route POST /universal_webhook/ap-demo on this port (the public door listens on HOOKS_HTTP_PORT)');
});

it('the CLI drives the admin port; pointed at the door port it says that is not the management API', async () => {
  const r = await runCli(['hooks', 'list', '--json'], { env: { HOOKYARD_URL: admin, HOOKYARD_TOKEN: ADMIN } });
  expect(r.code).toBe(0);
  const wrong = await runCli(['hooks', 'list'], { env: { HOOKYARD_URL: door, HOOKYARD_TOKEN: ADMIN } });
  expect(wrong.code).toBe(3);
  expect(lines(wrong.stderr)[0]).toMatch(/is not a Hookyard management API: GET \/api\/hooks answered 404 without the x-hookyard-api header/);
});

it('HOOKS_ADMIN_PORT equal to HOOKS_HTTP_PORT is refused: exit 2 naming it', async () => {
  const r = await runCli(['serve'], { env: { HOOKS_HTTP_PORT: '18080', HOOKS_ADMIN_PORT: '18080' }, killAfterMs: 15_000 });
  expect({ code: r.code, stderr: lines(r.stderr) }).toEqual({
    code: 2,
    stderr: ['hookyard: bad setting HOOKS_ADMIN_PORT: must differ from HOOKS_HTTP_PORT (18080): it exists to keep the management API off the public port'],
  });
});
