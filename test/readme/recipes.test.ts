/**
 * The recipes in docs/recipes, word for word: each one's "Try it" block runs
 * with bash against the embedded default (as `pnpm start` starts it, with the
 * senders' secrets in its environment), signing as GitHub, Stripe and Slack
 * sign, and every answer it prints is checked, then the runs it left. If a
 * recipe and the code drift apart, this fails.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readFileSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { eventually, requireBuiltCli, startRole, type RoleProcess } from '../support/processes';

const run = promisify(execFile);
const ROOT = join(__dirname, '..', '..');

/** The first ```sh block after the recipe's "## Try it". */
function tryIt(recipe: string): string {
  const text = readFileSync(join(ROOT, 'docs', 'recipes', recipe), 'utf8');
  const at = text.indexOf('## Try it');
  if (at < 0) throw new Error(`${recipe} has no "## Try it" section`);
  const m = /```sh\n([\s\S]*?)```/.exec(text.slice(at));
  if (!m?.[1]) throw new Error(`${recipe}: "Try it" has no sh block`);
  return m[1];
}

const SECRETS = {
  HOOKS_SECRET_GITHUB_WEBHOOK_SECRET: randomBytes(20).toString('hex'),
  HOOKS_SECRET_STRIPE_WEBHOOK_SECRET: `whsec_${randomBytes(24).toString('base64url')}`,
  HOOKS_SECRET_STRIPE_WEBHOOK_SECRET_NEXT: `whsec_${randomBytes(24).toString('base64url')}`,
  HOOKS_SECRET_SLACK_SIGNING_SECRET: randomBytes(16).toString('hex'),
};

describe('recipes', () => {
  let server: RoleProcess;
  let dir: string;
  const token = randomBytes(24).toString('hex');

  beforeAll(async () => {
    requireBuiltCli();
    server = startRole('embedded', 'all', { HOOKS_API_TOKENS: `admin:${token}`, HOOKS_DOOR_RATE: '0', ...SECRETS });
    await server.waitListening();
    dir = mkdtempSync(join(tmpdir(), 'hookyard-recipes-'));
  });

  afterAll(async () => {
    await server?.stop();
    rmSync(dir, { recursive: true, force: true });
  });

  /** Runs a recipe's block (from an empty directory, which it must leave empty: a recipe run in the repository leaves nothing there); one printed line per curl. */
  async function lines(recipe: string): Promise<string[]> {
    const script = tryIt(recipe).replaceAll('http://127.0.0.1:8080', server.url);
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOOKYARD_TOKEN: token, NODE_PATH: join(ROOT, 'node_modules'), ...SECRETS },
    });
    expect(readdirSync(dir)).toEqual([]);
    // The door's answer names the runs it kept; their ids differ per run of the test.
    return stdout
      .trimEnd()
      .split('\n')
      .map((l) => l.replace(/,"run_ids":\["[0-9a-z]{26}"\],"event_id":"[0-9a-z]{24}"\}$/, ',"run_ids":["<id>"],"event_id":"<event>"}'));
  }

  async function runsOf(hook: string, n: number): Promise<{ status: string; result: unknown }[]> {
    return eventually(
      async () => {
        const res = await fetch(`${server.url}/api/hook-runs?hook=${hook}`, { headers: { authorization: `Bearer ${token}` } });
        const body = (await res.json()) as { runs: { status: string; result: unknown }[] };
        return body.runs.length === n && body.runs.every((r) => r.status === 'succeeded') ? body.runs : undefined;
      },
      15_000,
      `${n} succeeded run(s) of ${hook}`,
    );
  }

  it('github.md: verifier, a pull-request hook, a redelivery is a duplicate', async () => {
    const out = await lines('github.md');
    expect(out).toHaveLength(6);
    expect(JSON.parse(out[0]!)).toMatchObject({
      created: true,
      verifier: { topic: 'github', kind: 'github', secrets: ['env:HOOKS_SECRET_GITHUB_WEBHOOK_SECRET'] },
    });
    expect(out[0]).not.toContain(SECRETS.HOOKS_SECRET_GITHUB_WEBHOOK_SECRET);
    expect(JSON.parse(out[1]!)).toMatchObject({ created: true });
    expect(out.slice(2)).toEqual([
      '{"status":"accepted","runs":1,"run_ids":["<id>"],"event_id":"<event>"}',
      '{"status":"duplicate"}',
      '{"error":"missing header X-GitHub-Delivery: a github verifier takes a delivery only with its delivery id (it makes a redelivery a duplicate)"}',
      '{"error":"webhook verification failed"}',
    ]);
    const [only] = await runsOf('pr-opened', 1);
    expect(only!.result).toEqual({ repo: 'Codertocat/Hello-World', number: 2, title: 'Update the README with new information.', author: 'Codertocat' });
  });

  it('stripe.md: two secrets while rolling, an invoice hook, a resent event is a duplicate, an old signature refused', async () => {
    const out = await lines('stripe.md');
    expect(out).toHaveLength(6);
    expect(JSON.parse(out[0]!)).toMatchObject({
      verifier: { topic: 'stripe', kind: 'stripe', secrets: ['env:HOOKS_SECRET_STRIPE_WEBHOOK_SECRET', 'env:HOOKS_SECRET_STRIPE_WEBHOOK_SECRET_NEXT'] },
    });
    expect(JSON.parse(out[1]!)).toMatchObject({ created: true });
    expect(out.slice(2)).toEqual([
      '{"status":"accepted","runs":1,"run_ids":["<id>"],"event_id":"<event>"}',
      '{"status":"duplicate"}',
      '{"status":"accepted","runs":1,"run_ids":["<id>"],"event_id":"<event>"}',
      '{"error":"webhook verification failed"}',
    ]);
    const runs = await runsOf('invoice-paid', 2);
    expect(runs.map((r) => r.result)).toEqual(
      expect.arrayContaining([{ invoice: 'in_1QxInvoice00000001', customer: 'cus_QxCustomer0001', amount_paid: 4200, currency: 'eur' }]),
    );
  });

  it('slack.md: the Request URL handshake answered with the challenge, nothing kept; a mention kept; a button resumes a parked run', async () => {
    const out = await lines('slack.md');
    expect(out).toHaveLength(10);
    expect(JSON.parse(out[0]!)).toMatchObject({ verifier: { topic: 'slack-events', kind: 'slack' } });
    expect(JSON.parse(out[1]!)).toMatchObject({ created: true });
    expect(out.slice(2, 4)).toEqual([
      '{"challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"}',
      '{"status":"accepted","runs":1,"run_ids":["<id>"],"event_id":"<event>"}',
    ]);
    const [only] = await runsOf('mentioned', 1);
    expect(only!.result).toEqual({ channel: 'C2147483705', user: 'U2147483697', text: '<@U0LAN0Z89> is it everything a river should be?' });
    // The interactive button resumes the parked release run, on a declared state.
    expect(JSON.parse(out[4]!)).toMatchObject({ created: true, declaration: { scope: 'deploy', kind: 'release', schema: {} } });
    expect(JSON.parse(out[5]!)).toMatchObject({ created: true });
    expect(JSON.parse(out[6]!)).toMatchObject({ created: true });
    expect(JSON.parse(out[7]!)).toMatchObject({ verifier: { topic: 'slack-actions', kind: 'slack' } });
    expect(out.slice(8)).toEqual([
      '{"status":"accepted","runs":1,"run_ids":["<id>"],"event_id":"<event>"}',
      '{"status":"accepted","runs":1,"run_ids":["<id>"],"event_id":"<event>"}',
    ]);
    const [released] = await runsOf('release-waits', 1);
    expect(released!.result).toEqual({ approved_by: 'amy.mcgee' });
    const [answered] = await runsOf('release-approved', 1);
    expect(answered!.result).toEqual({ resumed: [expect.any(String)] });
  });
});
