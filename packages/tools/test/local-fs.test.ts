import { mkdir, mkdtemp, readFile, rm, symlink, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { HookyardError } from '@hookyard/core';
import { localFsTool } from '../src/local/local-fs';
import { testContext } from './support/context';

let base: string;
let root: string;
let outside: string;
const ctx = testContext();

beforeAll(async () => {
  base = await mkdtemp(path.join(tmpdir(), 'hookyard-fs-'));
  root = path.join(base, 'root');
  outside = path.join(base, 'outside');
  await mkdir(path.join(root, 'docs', 'deep'), { recursive: true });
  await mkdir(outside);
  await writeFile(path.join(root, 'docs', 'a.txt'), 'alpha\nneedle one\n');
  await writeFile(path.join(root, 'docs', 'deep', 'b.txt'), 'beta needle two\n');
  await writeFile(path.join(outside, 'secret.txt'), 'needle secret');
  await symlink(outside, path.join(root, 'out-dir'));
  await symlink(path.join(outside, 'secret.txt'), path.join(root, 'out-file'));
  await symlink(path.join(outside, 'missing.txt'), path.join(root, 'dangling'));
  await symlink(path.join(root, 'docs'), path.join(root, 'in-link'));
});
afterAll(async () => {
  await rm(base, { recursive: true, force: true });
});

const call = (args: Record<string, unknown>) => localFsTool(root).run(args, ctx);
async function refusal(args: Record<string, unknown>): Promise<HookyardError> {
  const err = await call(args).then(
    (v) => new Error(`expected a refusal, got ${JSON.stringify(v)}`),
    (e: unknown) => e,
  );
  if (!(err instanceof HookyardError)) throw err;
  return err;
}

describe('local_fs inside the root', () => {
  it('writes, then reads back', async () => {
    await expect(call({ op: 'write', path: 'new/sub/file.txt', content: 'hello' })).resolves.toEqual({ path: 'new/sub/file.txt', written: 5 });
    await expect(call({ op: 'read', path: 'new/sub/file.txt' })).resolves.toMatchObject({ content: 'hello', size: 5, truncated: false });
  });

  it('lists one level by default, deeper on request, without following links', async () => {
    const one = (await call({ op: 'list', path: 'docs' })) as { entries: { path: string; type: string }[] };
    expect(one.entries.map((e) => e.path)).toEqual(['docs/a.txt', 'docs/deep']);
    const two = (await call({ op: 'list', path: '.', depth: 3 })) as { entries: { path: string; type: string }[] };
    expect(two.entries.find((e) => e.path === 'out-dir')?.type).toBe('symlink');
    expect(two.entries.some((e) => e.path.startsWith('out-dir/'))).toBe(false);
    expect(two.entries.some((e) => e.path === 'docs/deep/b.txt')).toBe(true);
  });

  it('searches literally and never through a link out', async () => {
    const r = (await call({ op: 'search', path: '.', query: 'needle' })) as { matches: { path: string; line: number }[] };
    expect(r.matches).toEqual([
      { path: 'docs/a.txt', line: 2, text: 'needle one' },
      { path: 'docs/deep/b.txt', line: 1, text: 'beta needle two' },
    ]);
  });

  it('follows a link that stays inside the root', async () => {
    await expect(call({ op: 'read', path: 'in-link/a.txt' })).resolves.toMatchObject({ content: 'alpha\nneedle one\n' });
  });

  it('bounds reads, writes, listings and matches', async () => {
    const small = { maxFileBytes: 8, maxEntries: 2, maxDepth: 8, maxMatches: 1 };
    const tool = localFsTool(root, small);
    await expect(tool.run({ op: 'read', path: 'docs/a.txt' }, ctx)).resolves.toMatchObject({ content: 'alpha\nne', truncated: true, size: 17 });
    await expect(tool.run({ op: 'write', path: 'big.txt', content: '123456789' }, ctx)).rejects.toMatchObject({ kind: 'bad_input' });
    await expect(tool.run({ op: 'list', path: '.', depth: 5 }, ctx)).resolves.toMatchObject({ truncated: true });
    const many = localFsTool(root, { ...small, maxFileBytes: 1024 });
    const r = (await many.run({ op: 'search', path: '.', query: 'needle' }, ctx)) as { matches: unknown[]; truncated: boolean };
    expect(r.matches).toHaveLength(1);
    expect(r.truncated).toBe(true);
  });

  it('a missing file is not_found; a bad op is bad_input', async () => {
    expect((await refusal({ op: 'read', path: 'nope.txt' })).kind).toBe('not_found');
    expect((await refusal({ op: 'delete', path: 'docs/a.txt' })).kind).toBe('bad_input');
  });
});

describe('local_fs refuses every way out with unauthorized', () => {
  it.each([
    ['.. at the start', { op: 'read', path: '../outside/secret.txt' }],
    ['.. in the middle', { op: 'read', path: 'docs/../../outside/secret.txt' }],
    ['.. that would land inside', { op: 'read', path: 'docs/../docs/a.txt' }],
    ['an absolute path', { op: 'read', path: '/etc/passwd' }],
    ['an absolute path to the root itself', { op: 'list', path: '/' }],
    ['a symlinked file out', { op: 'read', path: 'out-file' }],
    ['a symlinked directory out', { op: 'read', path: 'out-dir/secret.txt' }],
    ['listing through a symlinked directory', { op: 'list', path: 'out-dir' }],
    ['searching through a symlinked directory', { op: 'search', path: 'out-dir', query: 'needle' }],
    ['overwriting through a symlinked file', { op: 'write', path: 'out-file', content: 'x' }],
    ['a new file under a symlinked parent', { op: 'write', path: 'out-dir/new.txt', content: 'x' }],
    ['a new directory tree under a symlinked parent', { op: 'write', path: 'out-dir/a/b/new.txt', content: 'x' }],
    ['creating through a dangling link', { op: 'write', path: 'dangling', content: 'x' }],
    ['backslash climbing', { op: 'read', path: 'docs\\..\\..\\outside\\secret.txt' }],
  ])('%s', async (_label, args) => {
    const err = await refusal(args);
    expect(err.kind).toBe('unauthorized');
    expect(err.message).toContain(JSON.stringify(args.path));
  });

  it('left nothing outside and the secret untouched', async () => {
    await expect(readFile(path.join(outside, 'secret.txt'), 'utf8')).resolves.toBe('needle secret');
    await expect(readFile(path.join(outside, 'new.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(readFile(path.join(outside, 'missing.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
    await expect(readFile(path.join(outside, 'a', 'b', 'new.txt'))).rejects.toMatchObject({ code: 'ENOENT' });
  });
});
