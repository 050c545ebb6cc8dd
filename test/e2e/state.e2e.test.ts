/**
 * Subject state across processes (ingress, scheduler, two executors on real
 * Redis and JetStream): two hooks keep one state document per pull request
 * with state_merge, each write attributed to its run; a condition reading
 * $state skips an event that changes nothing; two hooks creating one subject
 * with if_version 0 leave one write and one run failed `conflict`; an
 * operator's PUT through the API is attributed to door api.
 */
import { randomBytes } from 'node:crypto';
import { uniquePrefix, cleanupPrefix } from '../support/services';
import { eventually, PLATFORM_ROLES, roleEnv, startRoles, stopRoles, type RoleProcess, requirePlatform } from '../support/processes';
import { Api, type RunView } from './api';

jest.setTimeout(120_000);

interface StateWrite {
  version: number;
  op: string;
  door: string;
  actor: string;
  hook: string | null;
}
interface StateView {
  document: Record<string, unknown>;
  version: number;
  history: StateWrite[];
}

const SUBJECT = { scope: 'github', kind: 'pull_request', key_expr: { content: '"\\(.repo)#\\(.pr)"' } };
const STATE = '/api/states/github/pull_request';

describe('subject state across processes (Redis + JetStream)', () => {
  const token = randomBytes(24).toString('hex');
  const prefix = uniquePrefix('e2estate');
  const procs: RoleProcess[] = [];
  let api: Api;

  /** Sends an event and waits until every run it kept has ended. */
  async function fire(topic: string, payload: unknown): Promise<RunView[]> {
    const res = await fetch(`${api.base}/universal_webhook/${topic}`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: JSON.stringify(payload),
    });
    const answer = (await res.json()) as { run_ids: string[] };
    expect(res.status).toBe(200);
    return Promise.all(
      answer.run_ids.map((id) =>
        eventually(
          async () => {
            const r = await api.ok<RunView>('GET', `/api/hook-runs/${id}`);
            return ['succeeded', 'skipped', 'failed'].includes(r.status) ? r : undefined;
          },
          60_000,
          `run ${id} to end`,
        ),
      ),
    );
  }

  beforeAll(async () => {
    await requirePlatform();
    const env = roleEnv(prefix, token, {
      HOOKS_RUN_SWEEP_SECONDS: '0.25',
      HOOKS_RUN_RETRY_BASE_SECONDS: '0.2',
      HOOKS_DOOR_RATE: '0',
      HOOKS_API_RATE: '0',
      HOOKS_STATE_MAX_BYTES: '4096',
    });
    procs.push(...(await startRoles(env, PLATFORM_ROLES)));
    api = new Api(procs[0]!.url, token);
    const hooks = [
      {
        name: 'pr-checks',
        topic: 'checks',
        tool: 'state_merge',
        subject: SUBJECT,
        condition: { content: '($state.checks // null) != .checks' },
        start_expr: { content: '{patch: {checks: .checks}}' },
      },
      { name: 'pr-reviews', topic: 'reviews', tool: 'state_merge', subject: SUBJECT, start_expr: { content: '{patch: {reviews: {(.by): .verdict}}}' } },
      {
        name: 'open-a',
        topic: 'opened',
        tool: 'state_set',
        subject: SUBJECT,
        tool_kwargs: { if_version: 0 },
        start_expr: { content: '{document: {opened_by: "a"}}' },
      },
      {
        name: 'open-b',
        topic: 'opened',
        tool: 'state_set',
        subject: SUBJECT,
        tool_kwargs: { if_version: 0 },
        start_expr: { content: '{document: {opened_by: "b"}}' },
      },
    ];
    await api.ok('PUT', '/api/states/declarations/github/pull_request', { schema: {}, description: 'a pull request' });
    for (const h of hooks) await api.ok('POST', '/api/hooks', h);
  });

  afterAll(async () => {
    await stopRoles(procs, 'SIGKILL');
    await cleanupPrefix(prefix);
  });

  it('two hooks merge into one document per pull request, each write attributed to its run; $state skips an unchanged status', async () => {
    const [checks] = await fire('checks', { repo: 'acme/api', pr: 7, checks: 'pending' });
    expect(checks).toMatchObject({ status: 'succeeded', result: { version: 1, document: { checks: 'pending' } } });
    const [review] = await fire('reviews', { repo: 'acme/api', pr: 7, by: 'ann', verdict: 'approved' });
    expect(review).toMatchObject({ status: 'succeeded', result: { version: 2 } });
    const [again] = await fire('checks', { repo: 'acme/api', pr: 7, checks: 'pending' });
    expect(again).toMatchObject({ status: 'skipped', result: { condition: false } });
    const [green] = await fire('checks', { repo: 'acme/api', pr: 7, checks: 'green' });
    expect(green!.status).toBe('succeeded');
    const state = await api.ok<StateView>('GET', `${STATE}/${encodeURIComponent('acme/api#7')}`);
    expect(state.document).toEqual({ checks: 'green', reviews: { ann: 'approved' } });
    expect(state.history.map((w) => [w.version, w.op, w.door, w.actor, w.hook])).toEqual([
      [1, 'merge', 'hook', checks!.id, 'pr-checks'],
      [2, 'merge', 'hook', review!.id, 'pr-reviews'],
      [3, 'merge', 'hook', green!.id, 'pr-checks'],
    ]);
    const put = await api.call<StateView>('PUT', `${STATE}/${encodeURIComponent('acme/api#7')}`, { document: { checks: 'reset' }, if_version: 3 });
    expect(put.status).toBe(200);
    expect(put.body.history[3]).toMatchObject({ version: 4, door: 'api', actor: expect.stringMatching(/^admin:[0-9a-f]{8}$/), hook: null });
    const stale = await api.call<{ error: { kind: string; message: string } }>('PUT', `${STATE}/${encodeURIComponent('acme/api#7')}`, {
      document: {},
      if_version: 3,
    });
    expect([stale.status, stale.body.error.kind]).toEqual([409, 'conflict']);
  });

  it('two hooks creating one subject with if_version 0: one writes, the other run fails conflict naming the kept version', async () => {
    const runs = await fire('opened', { repo: 'acme/api', pr: 8 });
    const won = runs.filter((r) => r.status === 'succeeded');
    const lost = runs.filter((r) => r.status === 'failed');
    expect([won.length, lost.length]).toEqual([1, 1]);
    expect(lost[0]!.error).toMatchObject({
      kind: 'conflict',
      message: expect.stringContaining('state github/pull_request/"acme/api#8" is at version 1, not version 0'),
    });
    const state = await api.ok<StateView>('GET', `${STATE}/${encodeURIComponent('acme/api#8')}`);
    expect(state.version).toBe(1);
    expect(state.history).toEqual([expect.objectContaining({ actor: won[0]!.id, hook: won[0]!.hook })]);
    expect(state.document).toEqual({ opened_by: won[0]!.hook === 'open-a' ? 'a' : 'b' });
    const list = await api.ok<{ states: Array<{ key: string }> }>('GET', '/api/states?scope=github&kind=pull_request');
    expect(list.states.map((s) => s.key)).toEqual(['acme/api#7', 'acme/api#8']);
  });
});
