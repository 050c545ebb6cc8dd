/**
 * Approvals across processes (ingress, scheduler and two executors on real
 * Redis and JetStream), with a real HTTP deploy tool that records every call:
 * approve through the API, through a signed link (GET does not act, POST
 * does, a second POST is refused), deny (the sentence, the tool never
 * called), deny by policy, expiry (the scheduler applies on_timeout), a
 * double answer (409), arguments changed before the approval (refused), and
 * a Slack-signed interactive payload (urlencoded `payload=<json>`, Slack's v0
 * scheme) on a slack-verified topic resuming an approval through
 * resume_expr: the tool called exactly once with the original arguments and
 * idempotency key.
 */
import { createHmac, randomBytes } from 'node:crypto';
import { uniquePrefix, cleanupPrefix, LOOPBACK_NETS_ENV } from '../support/services';
import { eventually, roleEnv, PLATFORM_ROLES, startRoles, stopRoles, type RoleProcess, requirePlatform } from '../support/processes';
import { idempotencyKey, json, startMockServer, type MockServer } from '../support/http-recorder';
import { Api, type RunView } from './api';

jest.setTimeout(240_000);

interface Run extends RunView {
  input: Record<string, unknown> | null;
  interaction: string | null;
  payload: unknown;
}
interface Interaction {
  id: string;
  kind: string;
  status: string;
  run: string;
  tool: string;
  args_hash: string;
  rule: string | null;
  expires_at: string;
  resolution: { by: string; via: string; reason: string } | null;
}
interface Call {
  key: string;
  body: Record<string, unknown>;
  at: number;
}

const SLACK_SECRET = `slack-signing-${randomBytes(8).toString('hex')}`;
const LINK_KEY = `link-key-${randomBytes(12).toString('hex')}`;
const PUBLIC = 'https://hooks.example.test';

describe('approvals across processes (Redis + JetStream)', () => {
  const token = randomBytes(24).toString('hex');
  const readerToken = randomBytes(24).toString('hex');
  const prefix = uniquePrefix('e2eappr');
  const procs: RoleProcess[] = [];
  const calls: Call[] = [];
  let server: MockServer | undefined;
  let ingress: RoleProcess;
  let api: Api;

  beforeAll(async () => {
    await requirePlatform();
    server = await startMockServer((req) => {
      if (req.method !== 'POST') return { status: 404 };
      const body = json<Record<string, unknown>>(req);
      calls.push({ key: idempotencyKey(req), body, at: req.at });
      return { body: JSON.stringify({ deployed: body }) };
    });
    const env = roleEnv(prefix, token, {
      HOOKS_RUN_SWEEP_SECONDS: '0.25',
      HOOKS_RUN_LEASE_SECONDS: '5',
      HOOKS_RUN_DISPATCH_GRACE_SECONDS: '3',
      HOOKS_DOOR_RATE: '0',
      HOOKS_API_RATE: '0',
      HOOKS_OUTBOUND_ALLOW_NETS: LOOPBACK_NETS_ENV,
      HOOKS_PUBLIC_URL: PUBLIC,
      HOOKS_APPROVAL_LINK_SECRET: 'env:HOOKS_SECRET_APPROVAL_LINKS',
      HOOKS_SECRET_APPROVAL_LINKS: LINK_KEY,
      HOOKS_SECRET_SLACK_SIGNING: SLACK_SECRET,
      HOOKS_API_TOKENS: `admin:${token},reader:${readerToken}`,
    });
    procs.push(...(await startRoles(env, PLATFORM_ROLES)));
    ingress = procs[0]!;
    api = new Api(ingress.url, token);

    await api.ok('POST', '/api/tools', { name: 'deploy', endpoint: `${server.url}/deploy`, protocol: 'langserve-direct', timeout_ms: 10_000 });
    await api.ok('PUT', '/api/approval-policy', {
      rules: [
        {
          name: 'prod deploys',
          tools: ['deploy'],
          when: '.args.env == "prod"',
          action: 'approve',
          message: 'deploy to prod?',
          timeout_seconds: 600,
          answer_hooks: ['slack-answers'],
        },
        { name: 'quick', tools: ['deploy'], when: '.args.env == "quick"', action: 'approve', timeout_seconds: 1 },
        { tools: ['deploy'], when: '.args.env == "frozen"', action: 'deny', message: 'deploys are frozen: ask #release' },
      ],
    });
    await api.ok('POST', '/api/hooks', { name: 'ship', topic: 'github', tool: 'deploy', start_expr: { content: '{service: .service, env: .env}' } });
    await api.ok('POST', '/api/hooks', {
      name: 'ship-edited',
      topic: 'github-edit',
      tool: 'deploy',
      start_expr: { content: '{service: .service, env: .env}' },
      tool_kwargs: { ref: 'main' },
    });
    // Where approval requests go: a hook on the platform topic (echo keeps the request as its result).
    await api.ok('POST', '/api/hooks', { name: 'ask-humans', topic: 'hooks_approval_requested', tool: 'echo', start_expr: { content: '.' } });
    // Slack's interactive payload: a form with one field, payload=<json>; the button carries the interaction id and the verdict.
    await api.ok('PUT', '/api/hooks/topics/slack-actions/verifier', { kind: 'slack', secret: 'env:HOOKS_SECRET_SLACK_SIGNING' });
    await api.ok('POST', '/api/hooks', {
      name: 'slack-answers',
      topic: 'slack-actions',
      tool: 'echo',
      resume_expr: { content: '.payload | fromjson | .actions[0] | {id: .value, payload: {verdict: .action_id, user: "slack"}}' },
    });
  });

  afterAll(async () => {
    await stopRoles(procs, 'SIGKILL');
    await server?.close();
    await cleanupPrefix(prefix);
  });

  const runOf = (id: string) => api.ok<Run>('GET', `/api/hook-runs/${id}`);
  const callsOf = (runId: string) => calls.filter((c) => c.key === runId).map(({ key, body }) => ({ key, body }));

  /** Sends an event on `topic` and waits until its run of `hook` is parked on an approval. */
  async function parkedRun(
    topic: string,
    hook: string,
    payload: Record<string, unknown>,
  ): Promise<{ run: Run; interaction: Interaction; request: Record<string, unknown> }> {
    const before = new Set((await api.allRuns(hook)).map((r) => r.id));
    expect((await api.sendEvent(topic, payload)).body).toMatchObject({ status: 'accepted', runs: 1 });
    const run = await eventually(
      async () => {
        const fresh = (await api.allRuns(hook)).find((r) => !before.has(r.id));
        return fresh && fresh.status === 'parked' ? runOf(fresh.id) : undefined;
      },
      60_000,
      `a parked run of ${hook}`,
    );
    const interaction = await api.ok<Interaction>('GET', `/api/interactions/${run.interaction}`);
    // The platform event reached the hook on hooks_approval_requested.
    const request = await eventually(
      async () => {
        const asks = await api.allRuns('ask-humans');
        const hit = asks.find((r) => r.status === 'succeeded' && (r.result as { interaction?: string }).interaction === interaction.id);
        return hit?.result as Record<string, unknown> | undefined;
      },
      60_000,
      'the hooks_approval_requested run',
    );
    return { run, interaction, request };
  }

  const until = (id: string, status: string) =>
    eventually(
      async () => {
        const r = await runOf(id);
        return r.status === status ? r : undefined;
      },
      60_000,
      `run ${id} to be ${status}`,
    );

  it('approve through the API: the tool is called once, with the original arguments and idempotency key; a second answer is 409 naming the first', async () => {
    const { run, interaction, request } = await parkedRun('github', 'ship', { service: 'api', env: 'prod' });
    expect(interaction).toMatchObject({ kind: 'approval', status: 'open', tool: 'deploy', rule: 'prod deploys' });
    expect(request).toMatchObject({
      interaction: interaction.id,
      run: run.id,
      tool: 'deploy',
      args: { service: 'api', env: 'prod' },
      rule: 'prod deploys',
      message: 'deploy to prod?',
      expires_at: interaction.expires_at,
      answer_hooks: ['slack-answers'],
    });
    expect(callsOf(run.id)).toHaveLength(0);
    const answeredAt = Date.now();
    const answered = await api.call<{ interaction: Interaction }>('POST', `/api/interactions/${interaction.id}/approve`, { reason: 'release 42' });
    expect(answered.status).toBe(200);
    const done = await until(run.id, 'succeeded');
    const call = calls.find((c) => c.key === run.id)!;
    process.stdout.write(`e2e approvals: approve answered -> tool call received in ${call.at - answeredAt} ms\n`);
    expect(done.result).toEqual({ deployed: { service: 'api', env: 'prod' } });
    expect(callsOf(run.id)).toEqual([{ key: run.id, body: { service: 'api', env: 'prod' } }]);
    const again = await api.call<{ error: { kind: string; message: string } }>('POST', `/api/interactions/${interaction.id}/deny`, {});
    expect(again.status).toBe(409);
    expect(again.body.error.message).toContain(`already approved (by ${answered.body.interaction.resolution!.by} via api`);
    const events = done.history.map((h) => h.event);
    for (const e of ['approval requested', 'parked', 'approval policy', 'acted', 'succeeded']) expect(events).toContain(e);
  });

  it('a reader sees no link anywhere (the runs, the request run, the interaction); the operator gets them; a link answers, records who used it, once', async () => {
    const { run, interaction, request } = await parkedRun('github', 'ship', { service: 'web', env: 'prod' });
    const reader = new Api(ingress.url, readerToken);
    const askRun = (await api.allRuns('ask-humans')).find((r) => (r.result as { interaction?: string }).interaction === interaction.id)!;
    const seen = [
      await reader.call('GET', '/api/hook-runs?limit=500'),
      await reader.call('GET', `/api/hook-runs?topic=hooks_approval_requested&limit=500`),
      await reader.call('GET', `/api/hook-runs/${askRun.id}`),
      await reader.call('GET', `/api/hook-runs/${run.id}`),
      await reader.call('GET', `/api/interactions/${interaction.id}`),
      await reader.call('GET', '/api/interactions?limit=500'),
    ];
    for (const r of seen) {
      expect(r.status).toBe(200);
      expect(JSON.stringify(r.body)).not.toContain('/approvals/');
      expect(JSON.stringify(r.body)).not.toContain('approve_url');
    }
    expect(request).not.toHaveProperty('approve_url');
    const links = (await api.ok<{ links: { approve_url: string; deny_url: string; expires_at: string } }>('GET', `/api/interactions/${interaction.id}`)).links;
    const local = (u: string) => u.replace(PUBLIC, ingress.url);
    const approveUrl = local(links.approve_url);
    expect(links.approve_url).toMatch(new RegExp(`^${PUBLIC}/approvals/${interaction.id}/approve\\?exp=[0-9]+&by=admin:[0-9a-f]{8}&sig=`));
    for (let i = 0; i < 2; i += 1) {
      const page = await fetch(approveUrl);
      expect(page.status).toBe(200);
      expect(await page.text()).toContain('<form method="post">');
    }
    expect((await api.ok<Interaction>('GET', `/api/interactions/${interaction.id}`)).status).toBe('open');
    expect((await runOf(run.id)).status).toBe('parked');
    // Another first character (a signature that starts with Z would otherwise stay the real one: 1 run in 64).
    const tampered = await fetch(
      approveUrl.replace(/sig=(.)/, (_m, c: string) => `sig=${c === 'Z' ? 'Y' : 'Z'}`),
      { method: 'POST' },
    );
    expect(tampered.status).toBe(403);
    const post = await fetch(approveUrl, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'e2e-approver/1.0' },
      body: 'reason=ok',
    });
    expect(post.status).toBe(200);
    const answered = await api.ok<Interaction>('GET', `/api/interactions/${interaction.id}`);
    expect(answered.resolution).toMatchObject({
      via: 'link',
      by: expect.stringMatching(/^signed link issued to admin:[0-9a-f]{8}, used from \S+ \(e2e-approver\/1\.0\)$/),
    });
    await until(run.id, 'succeeded');
    expect(callsOf(run.id)).toEqual([{ key: run.id, body: { service: 'web', env: 'prod' } }]);
    const second = await fetch(approveUrl, { method: 'POST' });
    expect(second.status).toBe(409);
    expect(await second.text()).toContain(`already answered: approved by ${answered.resolution!.by} via link`);
    expect((await fetch(local(links.deny_url), { method: 'POST' })).status).toBe(409);
    expect(callsOf(run.id)).toHaveLength(1);
  });

  it('deny through the API: the run ends denied with a sentence naming who and why; the tool is never called', async () => {
    const { run, interaction } = await parkedRun('github', 'ship', { service: 'db', env: 'prod' });
    await api.ok('POST', `/api/interactions/${interaction.id}/deny`, { reason: 'not during the incident' });
    const done = await until(run.id, 'denied');
    expect((done.result as { message: string }).message).toMatch(
      /^this call was denied by admin:[0-9a-f]{8} via api \(not during the incident\): ask for clarification or try a less destructive approach$/,
    );
    expect(done.error).toBeNull();
    expect(callsOf(run.id)).toHaveLength(0);
  });

  it('deny by policy: never parked, never called, never retried', async () => {
    expect((await api.sendEvent('github', { service: 'api', env: 'frozen' })).body.runs).toBe(1);
    const denied = await eventually(
      async () =>
        (await api.allRuns('ship')).find((r) => r.status === 'denied' && (r.result as { message?: string }).message === 'deploys are frozen: ask #release'),
      60_000,
      'the policy-denied run',
    );
    expect(denied.attempts).toBe(1);
    expect(callsOf(denied.id)).toHaveLength(0);
  });

  it('expiry: the scheduler expires the approval and on_timeout (deny) applies', async () => {
    const { run } = await parkedRun('github', 'ship', { service: 'api', env: 'quick' });
    const done = await until(run.id, 'denied');
    expect((done.result as { message: string }).message).toMatch(/^this call was not approved before its approval expired at /);
    expect(callsOf(run.id)).toHaveLength(0);
  });

  it('arguments changed before the approval: refused, the run ends denied saying why', async () => {
    const { run, interaction } = await parkedRun('github-edit', 'ship-edited', { service: 'api', env: 'prod' });
    await api.ok('POST', '/api/hooks', {
      name: 'ship-edited',
      topic: 'github-edit',
      tool: 'deploy',
      start_expr: { content: '{service: .service, env: .env}' },
      tool_kwargs: { ref: 'hotfix' },
    });
    await api.ok('POST', `/api/interactions/${interaction.id}/approve`, {});
    const done = await until(run.id, 'denied');
    expect((done.result as { message: string }).message).toMatch(/^this call was not made: the arguments changed/);
    expect(callsOf(run.id)).toHaveLength(0);
  });

  it('a Slack-signed interactive payload on a slack-verified topic resumes the approval through resume_expr; the tool is called exactly once', async () => {
    const { run, interaction } = await parkedRun('github', 'ship', { service: 'billing', env: 'prod' });
    const slackPayload = { type: 'block_actions', user: { id: 'U1', name: 'ada' }, actions: [{ action_id: 'approve', value: interaction.id, type: 'button' }] };
    const body = `payload=${encodeURIComponent(JSON.stringify(slackPayload))}`;
    const send = (b: string, secret = SLACK_SECRET) => {
      const ts = String(Math.floor(Date.now() / 1000));
      const sig = `v0=${createHmac('sha256', secret).update(`v0:${ts}:${b}`).digest('hex')}`;
      return fetch(`${ingress.url}/universal_webhook/slack-actions`, {
        method: 'POST',
        headers: { 'content-type': 'application/x-www-form-urlencoded', 'x-slack-request-timestamp': ts, 'x-slack-signature': sig },
        body: b,
      });
    };
    // A forged signature is refused at the door and answers nothing.
    expect((await send(body, 'not-the-secret')).status).toBe(401);
    expect((await api.ok<Interaction>('GET', `/api/interactions/${interaction.id}`)).status).toBe('open');
    const r = await send(body);
    expect(r.status).toBe(200);
    expect(await r.json()).toMatchObject({ status: 'accepted', runs: 1 });
    const done = await until(run.id, 'succeeded');
    expect(done.result).toEqual({ deployed: { service: 'billing', env: 'prod' } });
    const resolved = await api.ok<Interaction>('GET', `/api/interactions/${interaction.id}`);
    expect(resolved).toMatchObject({ status: 'approved', resolution: { via: 'hook' } });
    const answering = await eventually(async () => (await api.allRuns('slack-answers')).find((x) => x.status === 'succeeded'), 60_000, 'the answering run');
    expect(answering.acted).toBe('resume');
    expect(callsOf(run.id)).toEqual([{ key: run.id, body: { service: 'billing', env: 'prod' } }]);
  });
});
