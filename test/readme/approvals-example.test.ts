/**
 * The manual's "Approve deploys in Slack" (docs/approvals.md), word for word: its second sh block
 * runs with bash against the embedded default (with the secrets the first
 * block exports), a local deploy service and a local stand-in for Slack's
 * chat.postMessage (their addresses substituted, as 8080 is). The merged pull
 * request must park, the approval request reach "Slack" with its buttons, the
 * signed click approve it, and the deploy tool be called exactly once with
 * the approved arguments and the run id as Idempotency-Key.
 */
import { execFile, spawn } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import type { IncomingHttpHeaders } from 'node:http';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { manualSection } from '../support/manual';
import { eventually, requireBuiltCli, startRole, type RoleProcess } from '../support/processes';
import { freePort } from '../support/servers';
import { json, startMockServer, type MockServer } from '../support/http-recorder';

const run = promisify(execFile);
/** The `n`th ```sh block (0-based) of a section of docs/approvals.md. */
function block(heading: string, n: number): string {
  const section = manualSection('docs/approvals.md', `## ${heading}`);
  const blocks = [...section.matchAll(/```sh\n([\s\S]*?)```/g)].map((m) => m[1]!);
  if (!blocks[n]) throw new Error(`docs/approvals.md section "${heading}" has no sh block ${n}`);
  return blocks[n];
}

interface Seen {
  headers: IncomingHttpHeaders;
  body: Record<string, any>;
}

/** A tool endpoint answering every POST with `answer`; `seen` holds the POSTs (the schema probe's GET is not one). */
async function recorder(answer: unknown): Promise<{ server: MockServer; url: string; seen: Seen[] }> {
  const seen: Seen[] = [];
  const server = await startMockServer((req) => {
    if (req.method !== 'POST') return { status: 404 };
    seen.push({ headers: req.headers, body: json(req) });
    return { body: JSON.stringify(answer) };
  });
  return { server, url: server.url, seen };
}

const SECRETS = {
  HOOKS_SECRET_GITHUB_WEBHOOK_SECRET: randomBytes(20).toString('hex'),
  HOOKS_SECRET_SLACK_SIGNING_SECRET: randomBytes(16).toString('hex'),
};
const BOT_AUTH = `Bearer xoxb-${randomBytes(8).toString('hex')}`;

describe('README: approve deploys in Slack', () => {
  let server: RoleProcess;
  let dir: string;
  let deploy: Awaited<ReturnType<typeof recorder>>;
  let slack: Awaited<ReturnType<typeof recorder>>;
  const token = randomBytes(24).toString('hex');

  beforeAll(async () => {
    requireBuiltCli();
    deploy = await recorder({ deployed: true });
    slack = await recorder({ ok: true, ts: '1712.0001' });
    // What the first block exports, with this test's values.
    const setup = block('Approve deploys in Slack', 0);
    expect(setup).toContain('HOOKS_SECRET_SLACK_BOT_AUTH=');
    expect(setup).toContain('HOOKS_OUTBOUND_ALLOW_NETS=127.0.0.0/8');
    server = startRole('embedded', 'all', {
      HOOKS_API_TOKENS: `admin:${token}`,
      HOOKS_DOOR_RATE: '0',
      HOOKS_SECRET_SLACK_BOT_AUTH: BOT_AUTH,
      HOOKS_OUTBOUND_ALLOW_NETS: '127.0.0.0/8',
      ...SECRETS,
    });
    await server.waitListening();
    dir = mkdtempSync(join(tmpdir(), 'hookyard-approvals-'));
  });

  afterAll(async () => {
    await server?.stop();
    for (const r of [deploy, slack]) await r?.server.close();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('a merged pull request parks, the request reaches Slack with buttons, the signed click approves, deploy runs once', async () => {
    const script = block('Approve deploys in Slack', 2)
      .replaceAll('http://127.0.0.1:8080', server.url)
      .replaceAll('http://127.0.0.1:9100/deploy', `${deploy.url}/deploy`)
      .replaceAll('https://slack.com/api/chat.postMessage', `${slack.url}/api/chat.postMessage`);
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOOKYARD_TOKEN: token, ...SECRETS },
      timeout: 60_000,
    });
    const out = stdout.trimEnd().split('\n');
    expect(out).toHaveLength(10);
    expect(JSON.parse(out[0]!)).toMatchObject({ version: 1, rules: [{ name: 'prod deploys', action: 'approve', answer_hooks: ['slack-answers'] }] });
    for (const i of [1, 2, 3, 4, 5, 6, 7]) expect(JSON.parse(out[i]!)).toMatchObject({ created: true });
    expect(out[2]).not.toContain(BOT_AUTH);
    for (const line of out.slice(8)) expect(JSON.parse(line)).toMatchObject({ status: 'accepted', runs: 1 });

    const auth = { authorization: `Bearer ${token}` };
    const deployed = await eventually(
      async () => {
        const page = (await (await fetch(`${server.url}/api/hook-runs?hook=deploy-on-merge`, { headers: auth })).json()) as { runs: any[] };
        return page.runs[0]?.status === 'succeeded' ? page.runs[0] : undefined;
      },
      30_000,
      'the deploy run to succeed',
    );
    expect(deploy.seen).toHaveLength(1);
    expect(deploy.seen[0]!.body).toEqual({ service: 'billing', ref: '9f3c2e1', env: 'prod' });
    expect(deploy.seen[0]!.headers['idempotency-key']).toBe(deployed.id);
    expect(deployed.result).toEqual({ deployed: true });

    // The approval request as Slack got it: the bot's Authorization, the channel, a button carrying the interaction id.
    expect(slack.seen).toHaveLength(1);
    const post = slack.seen[0]!;
    expect(post.headers.authorization).toBe(BOT_AUTH);
    expect(post.body).toMatchObject({ channel: '#deploys', text: 'a merged pull request wants to deploy: billing at 9f3c2e1' });
    const interaction = (await (await fetch(`${server.url}/api/interactions/${deployed.interaction}`, { headers: auth })).json()) as any;
    expect(interaction).toMatchObject({ kind: 'approval', status: 'approved', rule: 'prod deploys', resolution: { via: 'hook' } });
    // The rule's message heads the Slack message (why a person is asked), then the buttons.
    expect(post.body.blocks[0]).toEqual({ type: 'section', text: { type: 'mrkdwn', text: 'a merged pull request wants to deploy' } });
    expect(interaction.message).toBe('a merged pull request wants to deploy');
    expect(post.body.blocks[1].elements.map((e: any) => [e.action_id, e.value])).toEqual([
      ['approve', interaction.id],
      ['deny', interaction.id],
    ]);
  }, 90_000);

  it('the stand-in deploy service the README ships answers {"deployed":true} and prints the call; the example leaves no file behind', async () => {
    expect(readdirSync(dir)).toEqual([]);
    const port = await freePort();
    const standIn = block('Approve deploys in Slack', 1);
    expect(standIn).toContain('.listen(9100, ');
    const child = spawn('bash', ['-c', standIn.replace('.listen(9100, ', `.listen(${port}, `)], { stdio: ['ignore', 'pipe', 'inherit'] });
    let out = '';
    child.stdout.on('data', (c: Buffer) => (out += c.toString('utf8')));
    try {
      const res = await eventually(
        () =>
          fetch(`http://127.0.0.1:${port}/deploy`, { method: 'POST', headers: { 'idempotency-key': 'run-1' }, body: '{"service":"billing"}' }).then(
            (r) => r,
            () => undefined,
          ),
        10_000,
        'the stand-in to listen',
      );
      expect(await res.json()).toEqual({ deployed: true });
      await eventually(async () => (out.includes('\n') ? true : undefined), 5_000, 'its line');
      expect(out).toBe('deploy called: run-1 {"service":"billing"}\n');
    } finally {
      child.kill('SIGKILL');
    }
  });
});
