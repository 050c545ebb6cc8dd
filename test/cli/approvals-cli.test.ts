import { eventually, requireBuiltCli, startListening, type RoleProcess } from '../support/processes';
import { lines, parseStdout, runCli, type CliResult } from './support';

/**
 * `hookyard approvals policy show|set` and `hookyard hooks dry-run` against
 * one embedded server (the built CLI, a real process), and a run the policy
 * denies end to end: the tool is never called, the run ends denied with its
 * sentence.
 */
const ADMIN = 'approvals-cli-admin-token-0123456789';
const OPERATOR = 'approvals-cli-operator-token-012345';
let server: RoleProcess;
let url = '';

function hy(args: readonly string[], opts: { token?: string; input?: string } = {}): Promise<CliResult> {
  return runCli(args, { env: { HOOKYARD_URL: url, HOOKYARD_TOKEN: opts.token ?? ADMIN }, input: opts.input });
}
async function ok<T = Record<string, any>>(args: readonly string[], opts: Parameters<typeof hy>[1] = {}): Promise<T> {
  const r = await hy([...args, '--json'], opts);
  if (r.code !== 0) throw new Error(`hookyard ${args.join(' ')} exited ${r.code}:\n${r.stderr}`);
  return parseStdout<T>(r);
}

beforeAll(async () => {
  requireBuiltCli();
  server = await startListening('approvals-cli', 'all', { HOOKS_API_TOKENS: `admin:${ADMIN},operator:${OPERATOR}`, HOOKS_DOOR_RATE: '0' });
  url = server.url;
}, 30_000);

afterAll(async () => {
  await server?.stop();
});

describe('hookyard approvals policy, hooks dry-run', () => {
  it('policy set and show; a bad rule is refused with its line; an operator may not set it', async () => {
    const set = await ok([
      'approvals',
      'policy',
      'set',
      '--params',
      JSON.stringify({ rules: [{ name: 'no shouting', tools: ['echo'], when: '.args.shout == true', action: 'deny', message: 'say it quietly' }] }),
    ]);
    expect(set).toMatchObject({ version: 1, rules: [{ name: 'no shouting' }] });
    expect(await ok(['approvals', 'policy', 'show'])).toEqual(set);
    const human = await hy(['approvals', 'policy', 'show']);
    expect(lines(human.stdout)[0]).toMatch(/^approval policy version 1 \(updated .*\): 1 rule\(s\)$/);
    const bad = await hy(['approvals', 'policy', 'set', '--file', '-'], { input: JSON.stringify({ rules: [{ tools: ['*'], action: 'perhaps' }] }) });
    expect(bad.code).toBe(1);
    expect(lines(bad.stderr)).toEqual([
      'hookyard: 400 bad_input: approval policy refused',
      '  - rules[0].action "perhaps" must be one of allow, approve, deny',
    ]);
    const weak = await hy(['approvals', 'policy', 'set', '--params', '{"rules":[]}'], { token: OPERATOR });
    expect(weak.code).toBe(1);
    expect(weak.stderr).toContain('needs the admin role');
  });

  it('dry-run by name and by record; then the real run is denied with the sentence, the tool never called', async () => {
    await ok(['hooks', 'register', '--params', JSON.stringify({ name: 'shout', topic: 'chat', tool: 'echo', start_expr: { content: '{text, shout}' } })], {
      token: OPERATOR,
    });
    const denied = await ok(['hooks', 'dry-run', 'shout', '--payload', '{"text":"HI","shout":true}'], { token: OPERATOR });
    expect(denied).toMatchObject({
      outcome: 'denied',
      kwargs: { text: 'HI', shout: true },
      approval: { action: 'deny', rule: 'no shouting', message: 'say it quietly' },
    });
    const record = JSON.stringify({ name: 'draft', topic: 'chat', tool: 'echo', condition: { content: '.text != null' } });
    const skipped = await ok(['hooks', 'dry-run', '--file', '-', '--payload', '{}'], { token: OPERATOR, input: record });
    expect(skipped).toMatchObject({ hook: 'draft', outcome: 'skipped', condition: { matched: false } });
    const human = await hy(['hooks', 'dry-run', 'shout', '--payload', '{"text":"hi","shout":false}'], { token: OPERATOR });
    expect(lines(human.stdout)[0]).toBe('hook shout: start');
    const usage = await hy(['hooks', 'dry-run', 'shout', '--params', record]);
    expect(usage.code).toBe(2);

    const res = await fetch(`${url}/universal_webhook/chat`, {
      method: 'POST',
      headers: { 'content-type': 'application/json' },
      body: '{"text":"HI","shout":true}',
    });
    expect(res.status).toBe(200);
    const run = await eventually(
      async () => {
        const page = await ok<{ runs: any[] }>(['runs', 'list', '--hook', 'shout']);
        return page.runs.find((r) => r.status === 'denied');
      },
      15_000,
      'the run to end denied',
    );
    expect(run.result).toEqual({ message: 'say it quietly', rule: 'no shouting', policy_version: 1 });
    expect(run.acted).toBe('');
    expect(run.input).toBeNull();
    expect(run.error).toBeNull();
  });

  it("an approval keeps its rule's message: interactions list shows it in a column, show and --json carry it", async () => {
    await ok([
      'approvals',
      'policy',
      'set',
      '--params',
      JSON.stringify({ rules: [{ name: 'loud', tools: ['print'], action: 'approve', message: 'check the volume first' }] }),
    ]);
    await ok(['hooks', 'register', '--params', JSON.stringify({ name: 'loud-print', topic: 'loud', tool: 'print', start_expr: { content: '{text}' } })], {
      token: OPERATOR,
    });
    const res = await fetch(`${url}/universal_webhook/loud`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"text":"HI"}' });
    expect(res.status).toBe(200);
    const open = await eventually(
      async () => (await ok<{ interactions: any[] }>(['interactions', 'list', '--hook', 'loud-print', '--kind', 'approval'])).interactions[0],
      15_000,
      'the approval',
    );
    expect(open).toMatchObject({ rule: 'loud', message: 'check the volume first', status: 'open' });
    expect(await ok(['interactions', 'show', open.id])).toMatchObject({ message: 'check the volume first' });
    const table = await hy(['interactions', 'list', '--hook', 'loud-print']);
    expect(lines(table.stdout)[0]).toMatch(/\sMESSAGE$/);
    expect(lines(table.stdout)[1]).toMatch(/\scheck the volume first$/);
    expect((await hy(['interactions', 'show', open.id])).stdout).toMatch(/^message\s+check the volume first$/m);
    // The same through `approvals list|show`: the open approvals only.
    const approvals = await ok<{ interactions: any[] }>(['approvals', 'list']);
    expect(approvals.interactions.map((i) => [i.id, i.message])).toEqual([[open.id, 'check the volume first']]);
    const listed = await hy(['approvals', 'list']);
    expect(lines(listed.stdout)[0]).toMatch(/^ID\s+TOOL\s+HOOK\s+RUN\s+RULE\s+EXPIRES_AT\s+MESSAGE$/);
    expect(lines(listed.stdout)[1]).toMatch(new RegExp(`^${open.id}\\s+print\\s+loud-print\\s+\\S+\\s+loud\\s+\\S+\\s+check the volume first$`));
    expect((await hy(['approvals', 'show', open.id])).stdout).toMatch(/^message\s+check the volume first$/m);
  });
});
