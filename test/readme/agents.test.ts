/**
 * The manual's "Agents" section (docs/agents.md), word for word, against the embedded default
 * (its address substituted for 8080, the agent token the first block printed
 * for `<agent token>`): the agent is made, an MCP client configured as the
 * JSON block says lists exactly its tools and calls one, the approval example
 * parks, is approved and answers the repeated call with the tool called
 * once, and the HTTP calls print what the README shows.
 */
import { execFile } from 'node:child_process';
import { randomBytes } from 'node:crypto';
import { mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StreamableHTTPClientTransport } from '@modelcontextprotocol/sdk/client/streamableHttp.js';
import { manualSection } from '../support/manual';
import { requireBuiltCli, startRole, type RoleProcess } from '../support/processes';

const run = promisify(execFile);
const SECTION = manualSection('docs/agents.md', '## Agents');

/** The `n`th fenced block of language `lang` (0-based) in the section. */
function block(lang: 'sh' | 'text' | 'json', n: number): string {
  const blocks = [...SECTION.matchAll(new RegExp('```' + lang + '\\n([\\s\\S]*?)```', 'g'))].map((m) => m[1]!);
  if (blocks[n] === undefined) throw new Error(`docs/agents.md "Agents" has no ${lang} block ${n}`);
  return blocks[n];
}

/** A line of the README's text with `<placeholders>` as a regex matching any non-space run. */
function shape(line: string): RegExp {
  const parts = line.split(/<[a-z ]+>/);
  return new RegExp('^' + parts.map((p) => p.replace(/[.*+?^${}()|[\]\\]/g, '\\$&')).join('\\S+') + '$');
}

describe('README: agents', () => {
  let server: RoleProcess;
  let dir: string;
  let agentToken = '';
  const token = randomBytes(24).toString('hex');

  async function sh(script: string, env: Record<string, string> = {}): Promise<{ stdout: string; stderr: string }> {
    return run('bash', ['-euo', 'pipefail', '-c', script.replaceAll('http://127.0.0.1:8080', server.url)], {
      cwd: dir,
      env: { PATH: process.env.PATH ?? '', HOME: dir, HOOKYARD_URL: server.url, HOOKYARD_TOKEN: token, ...env },
      timeout: 60_000,
    });
  }

  beforeAll(async () => {
    requireBuiltCli();
    server = startRole('embedded', 'all', { HOOKS_API_TOKENS: `admin:${token}`, HOOKS_DOOR_RATE: '0' });
    await server.waitListening();
    dir = mkdtempSync(join(tmpdir(), 'hookyard-agents-'));
  });

  afterAll(async () => {
    await server?.stop();
    if (dir) rmSync(dir, { recursive: true, force: true });
  });

  it('hookyard agents create prints the token once, in the shape the README shows', async () => {
    const { stdout } = await sh(block('sh', 0));
    const lines = stdout.trimEnd().split('\n');
    const expected = block('text', 0).trimEnd().split('\n');
    expect(lines).toHaveLength(expected.length);
    lines.forEach((line, i) => expect(line).toMatch(shape(expected[i]!)));
    agentToken = lines[1]!;
    expect(agentToken).toMatch(/^hya_[A-Za-z0-9_-]{43}$/);
  });

  it('an MCP client configured as the JSON block says lists exactly the agent tools and calls one', async () => {
    const config = JSON.parse(block('json', 0).replace('<agent token>', agentToken).replaceAll('http://127.0.0.1:8080', server.url)) as {
      mcpServers: { hookyard: { type: string; url: string; headers: Record<string, string> } };
    };
    const entry = config.mcpServers.hookyard;
    expect(entry.type).toBe('http');
    const client = new Client({ name: 'readme-agent', version: '1.0.0' });
    await client.connect(new StreamableHTTPClientTransport(new URL(entry.url), { requestInit: { headers: entry.headers } }));
    try {
      expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
      const result = await client.callTool({ name: 'echo', arguments: { text: 'from mcp' } });
      expect(result.isError ?? false).toBe(false);
      expect(result.structuredContent).toEqual({ text: 'from mcp' });
    } finally {
      await client.close();
    }
  });

  it('the approval example parks the call, the operator approves it, and the repeated call gets the result; the tool ran once', async () => {
    // The block as pasted, with the two values a reader fills in: the token and the interaction id the list shows.
    const script = block('sh', 1)
      .replace('<agent token>', agentToken)
      .replace(
        '<interaction id>',
        `"$(hookyard interactions list --status open --json | node -p 'JSON.parse(require("fs").readFileSync(0, "utf8")).interactions[0].id')"`,
      );
    const { stdout, stderr } = await sh(script);
    const out = stdout.trimEnd().split('\n');
    expect(out[0]).toBe('approval policy version 1: 1 rule(s)');
    expect(out[1]).toBe('exit 5');
    expect(out[2]).toMatch(/^ID +KIND +STATUS +HOOK +RUN +TOOL +EXPIRES_AT/);
    expect(out[3]).toMatch(/^\S+ +approval +open +agent:ci-bot +\S+ +echo /);
    expect(out[4]).toMatch(/^interaction \S+ approved; run \S+ woken$/);
    expect(out.slice(5).join('\n')).toBe('{\n  "text": "ship it"\n}');
    expect(stderr).toContain('awaits approval');
    expect(stderr).toContain("by rule 'agents shipping' (ci-bot wants to ship)");
    // The repeat keeps the token flag as it was given: the variable, never the token.
    expect(stderr).toContain(`hookyard call echo --args '{"text":"ship it"}' --key ship-1 --token "$AGENT_TOKEN"`);
    // One run for the two calls (same key), approved and succeeded, its tool started once.
    const runs = (await (
      await fetch(`${server.url}/api/hook-runs?agent=ci-bot&status=succeeded`, { headers: { authorization: `Bearer ${token}` } })
    ).json()) as {
      runs: { payload: { idempotency_key: string }; history: { event: string }[] }[];
    };
    const shipped = runs.runs.filter((r) => r.payload.idempotency_key === 'ship-1');
    expect(shipped).toHaveLength(1);
    expect(shipped[0]!.history.filter((l) => l.event === 'acted')).toHaveLength(1);
  });

  it('the HTTP calls in the three shapes print what the README shows', async () => {
    const { stdout } = await sh(block('sh', 2), { AGENT_TOKEN: agentToken });
    const lines = stdout.trimEnd().split('\n');
    const expected = block('text', 1).trimEnd().split('\n');
    expect(lines).toHaveLength(3);
    lines.forEach((line, i) => expect(line).toMatch(shape(expected[i]!)));
    expect(readdirSync(dir)).toEqual(expect.not.arrayContaining(['hookyard']));
  });
});
