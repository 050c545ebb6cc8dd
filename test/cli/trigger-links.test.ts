import { requireBuiltCli, startListening, type RoleProcess } from '../support/processes';
import { lines, parseStdout, runCli, type CliResult } from './support';

/**
 * `hookyard hooks link create|list|revoke` against a spawned server: create
 * shows the token once (the full URL under HOOKS_PUBLIC_URL), the link fires
 * its hook, list never shows a token, revoke refuses the next use with the
 * door's fixed 404; a bad --max-uses is a usage error.
 */
const OPERATOR = 'cli-links-operator-token-0123456789';
const READER = 'cli-links-reader-token-0123456789';

let server: RoleProcess;
let url = '';
const hy = (args: readonly string[], token = OPERATOR): Promise<CliResult> => runCli(args, { env: { HOOKYARD_URL: url, HOOKYARD_TOKEN: token } });

async function ok<T = Record<string, any>>(args: readonly string[], token = OPERATOR): Promise<T> {
  const r = await hy([...args, '--json'], token);
  if (r.code !== 0) throw new Error(`hookyard ${args.join(' ')} exited ${r.code}:\n${r.stderr}`);
  return parseStdout<T>(r);
}

beforeAll(async () => {
  requireBuiltCli();
  server = await startListening('cli-links', 'all', {
    HOOKS_API_TOKENS: `operator:${OPERATOR},reader:${READER}`,
    HOOKS_DOOR_RATE: '0',
    HOOKS_PUBLIC_URL: 'https://hooks.example.com',
  });
  url = server.url;
});

afterAll(async () => {
  await server?.stop();
});

describe('hooks link', () => {
  it('create shows the token once and the full URL; the link fires its hook; list shows no token; revoke refuses the next use', async () => {
    await ok(['hooks', 'register', '--params', JSON.stringify({ name: 'cli-link', topic: 'cli-link', tool: 'echo' })]);
    const made = await ok(['hooks', 'link', 'create', 'cli-link', '--label', 'cron on build-01', '--max-uses', '5', '--expires-in', '3600']);
    expect(made).toMatchObject({
      link: { hook: 'cli-link', label: 'cron on build-01', max_uses: 5, uses: 0, revoked: false },
      url: `https://hooks.example.com${made.path}`,
    });
    const fired = await fetch(`${url}${made.path}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"n":1}' });
    expect([fired.status, await fired.json()]).toEqual([200, expect.objectContaining({ status: 'accepted', runs: 1 })]);

    const human = await hy(['hooks', 'link', 'create', 'cli-link']);
    expect(human.code).toBe(0);
    expect(lines(human.stdout)[1]).toMatch(/^https:\/\/hooks\.example\.com\/trigger\/[A-Za-z0-9_-]{43}$/);

    const listed = await ok<{ links: Array<Record<string, unknown>> }>(['hooks', 'link', 'list', 'cli-link'], READER);
    expect(listed.links.map((l) => [l.id, l.uses])).toEqual([
      [made.link.id, 1],
      [expect.any(String), 0],
    ]);
    const table = await hy(['hooks', 'link', 'list', 'cli-link'], READER);
    expect(table.stdout).toContain(made.link.id);
    // The last use: a time for the link that fired, never for the other.
    expect(lines(table.stdout)[0]).toMatch(/\bLAST_USED_AT\b/);
    expect(listed.links.map((l) => l.last_used_at)).toEqual([expect.stringMatching(/^\d{4}-\d\d-\d\dT/), null]);
    expect(table.stdout).toMatch(/never/);
    expect(table.stdout + JSON.stringify(listed)).not.toContain(made.token);

    const refusedReader = await hy(['hooks', 'link', 'create', 'cli-link'], READER);
    expect([refusedReader.code, refusedReader.stderr]).toEqual([1, expect.stringMatching(/^hookyard: 403 forbidden: /)]);

    expect(await ok(['hooks', 'link', 'revoke', 'cli-link', made.link.id])).toMatchObject({ revoked: true, link: { id: made.link.id, revoked: true } });
    const after = await fetch(`${url}${made.path}`, { method: 'POST', body: '{}' });
    expect([after.status, await after.text()]).toEqual([404, '{"error":"not found"}']);

    const bad = await hy(['hooks', 'link', 'create', 'cli-link', '--max-uses', '0']);
    expect([bad.code, lines(bad.stderr)]).toEqual([2, ['hookyard: --max-uses must be a whole number of at least 1, got "0"']]);
  });
});
