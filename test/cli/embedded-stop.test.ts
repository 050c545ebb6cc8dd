/**
 * The embedded default's start and stop as a person at a terminal sees them:
 * the banner says what lives only in memory, how to keep it, how to keep the
 * token and where the console is; the first Ctrl-C says how many runs it
 * waits for and for how long; the stop says what it dropped, counted from the
 * store, and exits 0; a port already taken is one line naming the setting.
 */
import { createServer, type Server } from 'node:net';
import { randomBytes } from 'node:crypto';
import { eventually, requireBuiltCli, startRole, type RoleProcess } from '../support/processes';
import { startMockServer, type MockServer } from '../support/http-recorder';
import { LOOPBACK_NETS_ENV } from '../support/services';

describe('embedded default: banner, graceful stop, port in use', () => {
  let tool: MockServer;
  let release: () => void = () => undefined;
  let called: Promise<void>;
  let onCall: () => void = () => undefined;
  const procs: RoleProcess[] = [];

  beforeAll(async () => {
    requireBuiltCli();
    called = new Promise<void>((resolve) => (onCall = resolve));
    // A tool that answers only when the test lets it: its run stays in flight until then.
    tool = await startMockServer(async (req) => {
      if (req.method !== 'POST') return { status: 404 };
      onCall();
      await new Promise<void>((resolve) => (release = resolve));
      return { body: '{"ok":true}' };
    });
  });

  afterAll(async () => {
    release();
    for (const p of procs) await p.stop('SIGKILL');
    await tool?.close();
  });

  it('the banner names what is only in memory, HOOKS_REDIS_URL, HOOKS_API_TOKENS and the console URL', async () => {
    const server = startRole('embedded', 'all', {});
    procs.push(server);
    const url = await server.waitListening();
    await eventually(async () => (server.lines.some((l) => l.includes('HOOKYARD_TOKEN=')) ? true : undefined), 10_000, 'the banner');
    const banner = server.lines.filter((l) => !l.startsWith('{')).join('\n');
    expect(banner).toContain(`console:     ${url}/console`);
    expect(banner).toMatch(/set HOOKS_API_TOKENS=admin:<a long random token> to keep one across restarts/);
    expect(banner).toContain(
      'only in memory, lost when this process stops: hooks, tools, verifier bindings, dedupe keys, the approval policy, templates, declared states, agents, trigger links, runs (held failed ones too), approvals and waits (open and answered), subject state, unrouted events, the audit trail, the delivery ids the duplicate check has seen, the Overview charts',
    );
    expect(banner).toContain('point HOOKS_REDIS_URL at a Redis and HOOKS_NATS_URL at NATS');
    expect(await server.stop('SIGINT')).toBe(0);
  });

  it('the first SIGINT says it waits for the run in flight and for how long; the stop counts what it dropped and exits 0', async () => {
    const token = randomBytes(16).toString('hex');
    const server = startRole('embedded', 'all', {
      HOOKS_API_TOKENS: `admin:${token}`,
      HOOKS_RUN_SHUTDOWN_GRACE_SECONDS: '1',
      HOOKS_OUTBOUND_ALLOW_NETS: LOOPBACK_NETS_ENV,
    });
    procs.push(server);
    const url = await server.waitListening();
    const api = async (method: string, path: string, body?: unknown) => {
      const res = await fetch(`${url}${path}`, {
        method,
        headers: { authorization: `Bearer ${token}`, 'content-type': 'application/json' },
        body: body === undefined ? undefined : JSON.stringify(body),
      });
      expect(res.status).toBeLessThan(300);
    };
    await api('POST', '/api/tools', { name: 'held', endpoint: tool.url, protocol: 'langserve-direct' });
    await api('POST', '/api/hooks', { name: 'slow', topic: 'slow', tool: 'held' });
    await api('POST', '/api/hooks', { name: 'other', topic: 'other', tool: 'echo' });
    await api('POST', '/universal_webhook/slow', { n: 1 });
    await called;
    const exit = server.stop('SIGINT', 15_000);
    await eventually(async () => (server.lines.some((l) => l.startsWith('hookyard: SIGINT')) ? true : undefined), 10_000, 'the stop line');
    expect(server.lines).toContain(
      'hookyard: SIGINT: stopping; waiting up to 1 s (HOOKS_RUN_SHUTDOWN_GRACE_SECONDS) for 1 run in flight, then handing back the rest; Ctrl-C again exits at once',
    );
    expect(await exit).toBe(0);
    // The run that outlived the grace was handed back (held as failed or due again): it counts as dropped either way.
    const last = server.lines.find((l) => l.startsWith('hookyard: stopped;'));
    expect(last).toMatch(/^hookyard: stopped; lost with the in-memory store: 2 hooks, 1 tool, 1 (failed run|run under way), 3 audit entries$/);
  });

  it('a port already in use is one line naming HOOKS_HTTP_PORT, exit 2', async () => {
    const taken: Server = createServer();
    await new Promise<void>((resolve) => taken.listen(0, '127.0.0.1', resolve));
    const port = (taken.address() as { port: number }).port;
    try {
      const server = startRole('embedded', 'all', { HOOKS_HTTP_PORT: String(port) });
      procs.push(server);
      expect(await server.wait()).toBe(2);
      const last = server.lines.filter((l) => l.length > 0).pop();
      expect(last).toBe(
        `hookyard: bad setting HOOKS_HTTP_PORT: port ${port} on 127.0.0.1 is already in use (another hookyard?): stop what holds it, or set HOOKS_HTTP_PORT to a free port (0 picks one)`,
      );
    } finally {
      taken.close();
    }
  });
});
