import { requireBuiltCli, startListening, type RoleProcess } from '../support/processes';
import { lines, parseStdout, runCli, type CliResult } from './support';

/**
 * `hookyard agents create|list|show|update|revoke|rotate` against a spawned server:
 * create and rotate print the token once with a line saying it is shown only
 * now; the token reaches the catalogue export (only its tools) and not the
 * management API; list and show never show a token; revoke and rotate refuse
 * the old token at once; an operator is refused; a bad --allow is a usage error;
 * --identity names who at an IdP may act as the agent, shown by list and show.
 */
const ADMIN = 'cli-agents-admin-token-0123456789';
const OPERATOR = 'cli-agents-operator-token-0123456789';

let server: RoleProcess;
let url = '';
const hy = (args: readonly string[], token = ADMIN): Promise<CliResult> => runCli(args, { env: { HOOKYARD_URL: url, HOOKYARD_TOKEN: token } });

async function ok<T = Record<string, any>>(args: readonly string[], token = ADMIN): Promise<T> {
  const r = await hy([...args, '--json'], token);
  if (r.code !== 0) throw new Error(`hookyard ${args.join(' ')} exited ${r.code}:\n${r.stderr}`);
  return parseStdout<T>(r);
}

/** GET /api/tools?format=mcp with an agent token: the status and the tool names. */
async function catalogue(token: string): Promise<[number, string[]]> {
  const res = await fetch(`${url}/api/tools?format=mcp`, { headers: { authorization: `Bearer ${token}` } });
  const body = (await res.json()) as { tools?: Array<{ name: string }> };
  return [res.status, (body.tools ?? []).map((t) => t.name).sort()];
}

beforeAll(async () => {
  requireBuiltCli();
  server = await startListening('cli-agents', 'all', { HOOKS_API_TOKENS: `admin:${ADMIN},operator:${OPERATOR}`, HOOKS_DOOR_RATE: '0' });
  url = server.url;
});

afterAll(async () => {
  await server?.stop();
});

describe('agents', () => {
  it('create shows the token once (saying so); list and show never do; the token reaches only its tools, not the management API', async () => {
    const made = await ok(['agents', 'create', 'cli-bot', '--allow', 'echo', '--description', 'the CLI test agent']);
    expect(made.agent).toMatchObject({ name: 'cli-bot', description: 'the CLI test agent', tools_allow: ['echo'] });
    expect(made.token).toMatch(/^hya_[A-Za-z0-9_-]{43}$/);
    expect(await catalogue(made.token)).toEqual([200, ['echo']]);
    const management = await fetch(`${url}/api/hook-runs`, { headers: { authorization: `Bearer ${made.token}` } });
    expect(management.status).toBe(403);

    const human = await hy(['agents', 'create', 'cli-bot-2', '--allow', 'echo, print']);
    expect(human.code).toBe(0);
    const [said, token] = lines(human.stdout);
    expect(said).toMatch(/^made agent cli-bot-2 \(token [0-9a-f]{8}\); its token is shown only now, keep it like a password:$/);
    expect(token).toMatch(/^hya_[A-Za-z0-9_-]{43}$/);
    expect((await ok(['agents', 'show', 'cli-bot-2'])).tools_allow).toEqual(['echo', 'print']);

    const listed = await ok<{ agents: Array<Record<string, unknown>> }>(['agents', 'list']);
    expect(listed.agents.map((a) => a.name)).toEqual(['cli-bot', 'cli-bot-2']);
    const table = await hy(['agents', 'list']);
    const shown = await hy(['agents', 'show', 'cli-bot']);
    expect(lines(table.stdout)[0]).toMatch(/^NAME\s+TOOLS_ALLOW\s+TOKEN_ID/);
    expect(table.stdout).toContain('cli-bot-2');
    expect(shown.stdout).toMatch(/^name\s+cli-bot$/m);
    for (const out of [table.stdout, shown.stdout, JSON.stringify(listed)]) {
      expect(out).not.toContain(made.token);
      expect(out).not.toContain(token);
    }
  });

  it('update changes the allowlist and description (the token stays and sees the new tools); list and show give last use and 24 h counts', async () => {
    const made = await ok(['agents', 'create', 'edit-bot', '--allow', 'echo', '--description', 'before']);
    expect(await catalogue(made.token)).toEqual([200, ['echo']]);
    const json = await ok(['agents', 'update', 'edit-bot', '--tools-allow', 'echo,print']);
    expect(json).toMatchObject({ name: 'edit-bot', tools_allow: ['echo', 'print'], description: 'before', token_id: made.agent.token_id });
    expect(await catalogue(made.token)).toEqual([200, ['echo', 'print']]);
    const human = await hy(['agents', 'update', 'edit-bot', '--description', '']);
    expect([human.code, human.stdout]).toEqual([0, 'updated agent edit-bot: tools_allow echo,print; description (none)\n']);
    expect((await ok(['agents', 'show', 'edit-bot'])).description).toBeNull();
    // Usage: one call through POST /api/calls, counted in the list and show.
    const call = await fetch(`${url}/api/calls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${made.token}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'echo', arguments: { hi: 1 }, wait_seconds: 0 }),
    });
    expect(call.status).toBeLessThan(300);
    const shown = await ok(['agents', 'show', 'edit-bot']);
    expect(shown.usage).toMatchObject({ calls: 1, denied: 0, approvals: 0, failed: 0, last_used_at: expect.stringMatching(/^\d{4}-/) });
    const table = await hy(['agents', 'list']);
    expect(lines(table.stdout)[0]).toMatch(/^NAME\s+TOOLS_ALLOW\s+TOKEN_ID\s+LAST_USED_AT\s+CALLS_24H\s+DENIED_24H\s+APPROVALS_24H\s+FAILED_24H/);
    expect(lines(table.stdout).find((l) => l.startsWith('edit-bot'))).toMatch(/^edit-bot\s+echo,print\s+[0-9a-f]{8}\s+\d{4}-\S+\s+1\s+0\s+0\s+0/);
    expect((await hy(['agents', 'show', 'edit-bot'])).stdout).toMatch(/^calls_24h\s+1$/m);
    // Refusals: nothing to change (usage), a bad entry (400 naming it), an unknown agent (404).
    const nothing = await hy(['agents', 'update', 'edit-bot']);
    expect([nothing.code, lines(nothing.stderr)[0]]).toEqual([2, expect.stringMatching(/^hookyard: nothing to change: give --tools-allow/)]);
    const bad = await hy(['agents', 'update', 'edit-bot', '--tools-allow', 'echo,rm -rf']);
    expect([bad.code, bad.stderr]).toEqual([1, expect.stringContaining('tools_allow[1] "rm -rf" is not *, a tool name or !name')]);
    const ghost = await hy(['agents', 'update', 'ghost-bot', '--description', 'x']);
    expect([ghost.code, lines(ghost.stderr)[0]]).toEqual([1, 'hookyard: 404 not_found: no agent named "ghost-bot"']);
    await ok(['agents', 'revoke', 'edit-bot']);
  });

  it('rotate prints a new token once; the old one is refused at once, the new one works; revoke refuses it at once', async () => {
    const made = await ok(['agents', 'create', 'spin-bot', '--allow', '*']);
    const rotated = await hy(['agents', 'rotate', 'spin-bot']);
    expect(rotated.code).toBe(0);
    const [said, token] = lines(rotated.stdout);
    expect(said).toMatch(/^rotated agent spin-bot \(token [0-9a-f]{8}\); its token is shown only now/);
    expect(token).not.toBe(made.token);
    expect((await catalogue(made.token))[0]).toBe(401);
    expect((await catalogue(token!))[0]).toBe(200);
    const json = await ok(['agents', 'rotate', 'spin-bot']);
    expect(json.agent.name).toBe('spin-bot');
    expect((await catalogue(token!))[0]).toBe(401);

    expect(await ok(['agents', 'revoke', 'spin-bot'])).toEqual({ revoked: true, name: 'spin-bot' });
    expect((await catalogue(json.token))[0]).toBe(401);
    const again = await hy(['agents', 'revoke', 'spin-bot']);
    expect([again.code, lines(again.stderr)[0]]).toEqual([1, 'hookyard: 404 not_found: no agent named "spin-bot"']);
    const human = await hy(['agents', 'revoke', 'cli-bot-2']);
    expect([human.code, human.stdout]).toEqual([0, 'revoked agent cli-bot-2: its token is refused from now on\n']);
  });

  it('refuses an operator (403), a taken name (409), a bad allow entry (400) and an empty --allow (usage)', async () => {
    const operator = await hy(['agents', 'list'], OPERATOR);
    expect([operator.code, operator.stderr]).toEqual([1, expect.stringMatching(/^hookyard: 403 forbidden: this route needs the admin role/)]);
    await ok(['agents', 'create', 'twice-bot', '--allow', 'echo']);
    const taken = await hy(['agents', 'create', 'twice-bot', '--allow', 'echo']);
    expect([taken.code, taken.stderr]).toEqual([1, expect.stringMatching(/^hookyard: 409 conflict: agent 'twice-bot' already exists/)]);
    const badEntry = await hy(['agents', 'create', 'odd-bot', '--allow', 'echo,rm -rf']);
    expect(badEntry.code).toBe(1);
    expect(badEntry.stderr).toContain('tools_allow[1] "rm -rf" is not *, a tool name or !name');
    const empty = await hy(['agents', 'create', 'odd-bot', '--allow', ' , ']);
    expect([empty.code, lines(empty.stderr)]).toEqual([
      2,
      ['hookyard: --allow needs at least one tool name (e.g. --allow echo,github__get_issue, or --allow "*")'],
    ]);
    const none = await hy(['agents', 'create', 'odd-bot']);
    expect(none.code).toBe(2);
    expect(none.stderr).toContain('--allow');
  });

  it('create --identity (repeatable) keeps who at the IdP may act as the agent; list and show name them; a malformed one is a usage error', async () => {
    const made = await ok([
      'agents',
      'create',
      'idp-bot',
      '--allow',
      'echo',
      '--identity',
      'https://idp.example.com,subject=alice',
      '--identity',
      'https://idp.example.com, client_id=ci-runner',
    ]);
    const expected = [
      { issuer: 'https://idp.example.com', subject: 'alice' },
      { issuer: 'https://idp.example.com', client_id: 'ci-runner' },
    ];
    expect(made.agent.identities).toEqual(expected);
    expect((await ok(['agents', 'show', 'idp-bot'])).identities).toEqual(expected);
    const said = 'https://idp.example.com subject=alice; https://idp.example.com client_id=ci-runner';
    expect((await hy(['agents', 'show', 'idp-bot'])).stdout).toContain(`identities     ${said}`);
    const table = await hy(['agents', 'list']);
    expect(lines(table.stdout)[0]).toMatch(/^NAME\s+TOOLS_ALLOW\s+TOKEN_ID\s+.*\s+IDENTITIES\s+DESCRIPTION$/);
    expect(lines(table.stdout).find((l) => l.startsWith('idp-bot'))).toContain('https://idp.example.com subject=alice; https://idp.examp');

    const odd = await hy(['agents', 'create', 'odd-bot', '--allow', 'echo', '--identity', 'https://idp.example.com,sub=alice']);
    expect([odd.code, lines(odd.stderr)]).toEqual([
      2,
      [
        'hookyard: --identity "https://idp.example.com,sub=alice": "sub=alice" is not subject=S or client_id=C; e.g. --identity https://idp.example.com,subject=alice (or client_id=ci-runner)',
      ],
    ]);
    // An issuer alone would let everyone it signs in act as the agent: the server says so.
    const bare = await hy(['agents', 'create', 'odd-bot', '--allow', 'echo', '--identity', 'https://idp.example.com']);
    expect(bare.code).toBe(1);
    expect(bare.stderr).toContain('identities[0] needs a subject');
  });
});
