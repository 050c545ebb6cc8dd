/**
 * The README's walkthrough, word for word: its curl block runs against the
 * embedded default (as `pnpm start` starts it) and must leave one succeeded
 * and one skipped run. If the README and the code drift apart, this fails.
 */
import { execFile } from 'node:child_process';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { randomBytes } from 'node:crypto';
import { manualSection } from '../support/manual';
import { eventually, requireBuiltCli, startRole, type RoleProcess } from '../support/processes';

const run = promisify(execFile);
/** The first ```sh block of a README section. */
function block(heading: string): string {
  const m = /```sh\n([\s\S]*?)```/.exec(manualSection('README.md', `## ${heading}`));
  if (!m?.[1]) throw new Error(`README section "${heading}" has no sh block`);
  return m[1];
}

describe('README walkthrough', () => {
  let server: RoleProcess;
  const token = randomBytes(24).toString('hex');

  beforeAll(async () => {
    requireBuiltCli();
    server = startRole('embedded', 'all', { HOOKS_API_TOKENS: `admin:${token}`, HOOKS_DOOR_RATE: '0' });
    await server.waitListening();
  });

  afterAll(async () => {
    await server?.stop();
  });

  it('the curl lines register a hook, send two events and list one succeeded and one skipped run', async () => {
    const script = block('Walkthrough')
      .split('\n')
      .filter((l) => !l.startsWith('export HOOKYARD_TOKEN='))
      .join('\n')
      .replaceAll('http://127.0.0.1:8080', server.url);
    expect(script).toContain('/universal_webhook/demo');
    const { stdout } = await run('bash', ['-euo', 'pipefail', '-c', script], {
      env: { PATH: process.env.PATH ?? '', HOOKYARD_TOKEN: token },
    });
    // Each curl prints one JSON document; the last is the run list.
    expect(stdout).toContain('"status":"accepted"');
    const listed = await eventually(
      async () => {
        const res = await fetch(`${server.url}/api/hook-runs?hook=greet`, { headers: { authorization: `Bearer ${token}` } });
        const body = (await res.json()) as { runs: { status: string; result: unknown }[] };
        return body.runs.length === 2 && body.runs.every((r) => r.status !== 'pending' && r.status !== 'running') ? body.runs : undefined;
      },
      15_000,
      'both walkthrough runs to end',
    );
    const byStatus = Object.fromEntries(listed.map((r) => [r.status, r.result]));
    expect(byStatus.succeeded).toEqual({ greeting: 'hello', who: 'ada' });
    expect(byStatus.skipped).toBeDefined();
    // What the README says is printed, character for character: the door's line and both results as the run list prints them.
    const prose = manualSection('README.md', '## Walkthrough');
    const quoted = (after: string) => {
      const m = new RegExp(`${after}\\s+\`(\\{[^\`]*\\})\``).exec(prose);
      if (!m?.[1]) throw new Error(`the walkthrough has no \`{...}\` after "${after}"`);
      return m[1];
    };
    const doorLine = quoted('The door answers each event with one line,');
    const doorLines = stdout.split('\n').filter((l) => l.startsWith('{"status"'));
    expect(doorLines).toHaveLength(2);
    for (const l of doorLines)
      expect(l.replace(/"run_ids":\["[0-9a-z]+"\],"event_id":"[0-9a-z]+"/, '"run_ids":["<run id>"],"event_id":"<event id>"')).toBe(doorLine);
    const raw = await (await fetch(`${server.url}/api/hook-runs?hook=greet`, { headers: { authorization: `Bearer ${token}` } })).text();
    expect(raw).toContain(`"status":"succeeded"`);
    expect(raw).toContain(`"result":${quoted("with the echo tool's result")}`);
    expect(raw).toContain(`"result":${quoted('ends `skipped` with the result')}`);
  });

  it('the CLI lines of the walkthrough run and list the same runs', async () => {
    const cli = join(__dirname, '..', '..', 'packages', 'cli', 'bin', 'hookyard.js');
    const env = { PATH: process.env.PATH ?? '', HOOKYARD_TOKEN: token, HOOKYARD_URL: server.url };
    const { stdout } = await run(process.execPath, [cli, 'runs', 'list', '--hook', 'greet', '--json'], { env });
    const page = JSON.parse(stdout) as { runs: { status: string }[] };
    expect(page.runs.map((r) => r.status).sort()).toEqual(['skipped', 'succeeded']);
    const hooks = JSON.parse((await run(process.execPath, [cli, 'hooks', 'list', '--json'], { env })).stdout) as { hooks: { name: string }[] };
    expect(hooks.hooks.map((h) => h.name)).toContain('greet');
  });
});
