import { mkdtemp, readdir, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { localShellTool } from '../src/local/local-shell';
import { testContext } from './support/context';

let root: string;
const ctx = testContext();
beforeAll(async () => {
  root = await mkdtemp(path.join(tmpdir(), 'hookyard-sh-'));
});
afterAll(async () => {
  await rm(root, { recursive: true, force: true });
});

const tool = (extra: Partial<Parameters<typeof localShellTool>[0]> = {}) =>
  localShellTool({ root, allow: ['echo', 'pwd', 'sleep', 'sh-never', 'false', 'printenv'], timeoutMs: 5000, ...extra });

describe('local_shell', () => {
  it.each([
    ['a semicolon', 'x; touch pwned'],
    ['command substitution', '$(touch pwned)'],
    ['backticks', '`touch pwned`'],
    ['a pipe', 'x | touch pwned'],
    ['redirection and globs', '> pwned *'],
  ])('passes %s through as an inert argument', async (_label, arg) => {
    const out = (await tool().run({ command: 'echo', args: [arg] }, ctx)) as { exit_code: number; stdout: string };
    expect(out).toMatchObject({ exit_code: 0, stdout: `${arg}\n` });
    expect(await readdir(root)).toEqual([]);
  });

  it('refuses a command off the list, and a shell smuggled as the command', async () => {
    await expect(tool().run({ command: 'rm', args: ['-rf', '.'] }, ctx)).rejects.toMatchObject({
      kind: 'unauthorized',
      message: expect.stringContaining('"rm"'),
    });
    await expect(tool().run({ command: 'echo hi; rm x' }, ctx)).rejects.toMatchObject({ kind: 'unauthorized' });
    await expect(tool().run({ command: '/bin/echo', args: ['hi'] }, ctx)).rejects.toMatchObject({ kind: 'unauthorized' });
  });

  it('runs in the root with an environment that holds no secrets', async () => {
    process.env.HOOKYARD_TEST_SECRET = 'shh';
    try {
      const pwd = (await tool().run({ command: 'pwd' }, ctx)) as { stdout: string };
      expect(pwd.stdout.trim()).toBe(root);
      await expect(tool().run({ command: 'printenv', args: ['HOOKYARD_TEST_SECRET'] }, ctx)).rejects.toMatchObject({
        kind: 'bad_input',
        message: expect.stringContaining('exited 1'),
      });
    } finally {
      delete process.env.HOOKYARD_TEST_SECRET;
    }
  });

  it('kills a command past its time bound', async () => {
    await expect(tool({ timeoutMs: 200 }).run({ command: 'sleep', args: ['5'] }, ctx)).rejects.toMatchObject({ kind: 'timeout' });
  });

  it('reads its time bound from the call context (the live tool timeout), not from the one it was built with', async () => {
    // Built with 20 ms, called with 60 s: a half-second command finishes.
    await expect(tool({ timeoutMs: 20 }).run({ command: 'sleep', args: ['0.5'] }, testContext({ timeoutMs: 60_000 }))).resolves.toMatchObject({ exit_code: 0 });
    // Built with 10 minutes, called with 200 ms: the command is killed at the call's bound.
    await expect(tool({ timeoutMs: 600_000 }).run({ command: 'sleep', args: ['30'] }, testContext({ timeoutMs: 200 }))).rejects.toMatchObject({
      kind: 'timeout',
      message: 'local_shell: sleep ran past 200 ms and was killed',
    });
  });

  it('bounds the output', async () => {
    const out = (await tool({ maxOutputBytes: 4 }).run({ command: 'echo', args: ['0123456789'] }, ctx)) as { truncated: boolean; stdout: string };
    expect(out.truncated).toBe(true);
    expect(out.stdout.length).toBeLessThanOrEqual(4);
  });

  it('a missing program is not_found; bad args are bad_input', async () => {
    await expect(tool().run({ command: 'sh-never' }, ctx)).rejects.toMatchObject({ kind: 'not_found' });
    await expect(tool().run({ command: 'echo', args: 'x' }, ctx)).rejects.toMatchObject({ kind: 'bad_input' });
    await expect(tool().run({ command: 'echo', args: [1] }, ctx)).rejects.toMatchObject({ kind: 'bad_input' });
  });
});
