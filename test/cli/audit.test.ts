import { createHash } from 'node:crypto';
import { requireBuiltCli, startListening, type RoleProcess } from '../support/processes';
import { lines, parseStdout, runCli, type CliResult } from './support';

/**
 * `hookyard audit` against a spawned server: the operator's hook
 * registration shows up once, as a table and as JSON with before and after;
 * filters are flags; a non-admin token is refused; bad flags are usage errors.
 */
const ADMIN = 'cli-audit-admin-token-0123456789';
const OPERATOR = 'cli-audit-operator-token-0123456789';
const label = (role: string, token: string) => `${role}:${createHash('sha256').update(token).digest('hex').slice(0, 8)}`;

let server: RoleProcess;
let url = '';
const hy = (args: readonly string[], token = ADMIN): Promise<CliResult> => runCli(args, { env: { HOOKYARD_URL: url, HOOKYARD_TOKEN: token } });

async function ok<T = Record<string, any>>(args: readonly string[], token = ADMIN): Promise<T> {
  const r = await hy([...args, '--json'], token);
  if (r.code !== 0) throw new Error(`hookyard ${args.join(' ')} exited ${r.code}:\n${r.stderr}`);
  return parseStdout<T>(r);
}

beforeAll(async () => {
  requireBuiltCli();
  server = await startListening('cli-audit', 'all', { HOOKS_API_TOKENS: `admin:${ADMIN},operator:${OPERATOR}`, HOOKS_DOOR_RATE: '0' });
  url = server.url;
});

afterAll(async () => {
  await server?.stop();
});

describe('hookyard audit', () => {
  it('lists the changes newest first, as a table and as JSON, filtered by flags', async () => {
    await ok(['hooks', 'register', '--params', JSON.stringify({ name: 'cli-audited', topic: 'cli-audit', tool: 'echo' })], OPERATOR);
    await ok(['hooks', 'remove', 'cli-audited'], OPERATOR);
    // Entries are written once the answer has gone: wait for both.
    let page: { entries: Array<Record<string, any>>; next_cursor: string | null } = { entries: [], next_cursor: null };
    for (const until = Date.now() + 15_000; Date.now() < until && page.entries.length < 2;) page = await ok(['audit', '--action', 'hook.*']);
    expect(page.entries.map((e) => [e.action, e.target, e.actor.label])).toEqual([
      ['hook.remove', 'cli-audited', label('operator', OPERATOR)],
      ['hook.register', 'cli-audited', label('operator', OPERATOR)],
    ]);
    expect(page.entries[1]).toMatchObject({ before: null, after: { name: 'cli-audited', topic: 'cli-audit' } });

    const table = await hy(['audit', '--actor', 'operator', '--since', '1h', '--limit', '1']);
    expect(table.code).toBe(0);
    const rows = lines(table.stdout);
    expect(rows[0]).toMatch(/^AT\s+ACTOR\s+ACTION\s+TARGET\s+STATUS\s+CLIENT$/);
    expect(rows[1]).toMatch(new RegExp(`${label('operator', OPERATOR)}\\s+hook\\.remove\\s+cli-audited\\s+200`));
    expect(rows[2]).toMatch(/^more: hookyard audit --cursor [0-9a-z]{22} \(or --all\)$/);
    const all = await ok<{ entries: unknown[] }>(['audit', '--actor', 'operator', '--limit', '1', '--all']);
    expect(all.entries).toHaveLength(2);
    expect((await ok<{ entries: unknown[] }>(['audit', '--target', 'nothing-here'])).entries).toEqual([]);
  });

  it('an operator is refused (admin only); bad flags are usage errors naming the flag', async () => {
    const refused = await hy(['audit'], OPERATOR);
    expect(refused.code).not.toBe(0);
    expect(refused.stderr).toContain('this route needs the admin role; the token has operator');
    const limit = await hy(['audit', '--limit', '0']);
    expect([limit.code, limit.stderr]).toEqual([2, expect.stringContaining('--limit must be a whole number from 1 to 500, got "0"')]);
    const since = await hy(['audit', '--since', 'yesterday']);
    expect([since.code, since.stderr]).toEqual([2, expect.stringContaining('--since must be an ISO 8601 time')]);
    const action = await hy(['audit', '--action', 'Hook Register']);
    expect(action.code).not.toBe(0);
    expect(action.stderr).toContain('action must be an action such as hook.register');
  });
});
