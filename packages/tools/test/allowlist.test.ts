import fc from 'fast-check';
import { allows, silentLogger } from '@hookyard/core';
import { AllowlistRepo, resolveAllowlist } from '../src/allowlist-repo';
import { echoTool } from '../src/local/echo';
import { LocalRepo } from '../src/local/local-repo';
import { printTool } from '../src/local/print';
import { testContext } from './support/context';

const NAMES = ['a', 'b', 'c', 'echo', 'print'];
const allowed = (hook: string[] | undefined, runtime: string[]) => NAMES.filter((n) => allows(resolveAllowlist(hook, runtime), n));

describe('resolveAllowlist', () => {
  it.each([
    ['* allows everything', undefined, ['*'], NAMES],
    ['exact names', undefined, ['a', 'c'], ['a', 'c']],
    ['!x wins over *', undefined, ['*', '!b'], ['a', 'c', 'echo', 'print']],
    ['!x wins over the exact name', undefined, ['b', '!b'], []],
    ['["!x"] alone allows nothing', undefined, ['!b'], []],
    ['an empty list allows nothing', undefined, [], []],
    ['blank entries are ignored', undefined, [' ', 'a '], ['a']],
    ['no hook list = the runtime list', undefined, ['a', 'b'], ['a', 'b']],
    ['a hook list narrows', ['a'], ['*'], ['a']],
    ['a hook * cannot widen', ['*'], ['a'], ['a']],
    ['a hook name outside the runtime list stays out', ['a', 'z'], ['b'], []],
    ['a hook exclusion applies', ['*', '!a'], ['a', 'b'], ['b']],
    ['a runtime exclusion survives a hook naming it', ['b', 'c'], ['*', '!b'], ['c']],
    ['an empty hook list allows nothing', [], ['*'], []],
    ['exclusions on both sides', ['*', '!a'], ['*', '!b'], ['c', 'echo', 'print']],
  ] as [string, string[] | undefined, string[], string[]][])('%s', (_label, hook, runtime, expected) => {
    expect(allowed(hook, runtime)).toEqual(expected);
  });

  const entry = fc.oneof(
    fc.constantFrom(...NAMES),
    fc.constant('*'),
    fc.constantFrom(...NAMES).map((n) => `!${n}`),
  );
  const list = fc.array(entry, { maxLength: 6 });

  it('property: a name is allowed exactly when both lists allow it (the hook can only narrow)', () => {
    fc.assert(
      fc.property(list, list, fc.constantFrom(...NAMES), (hook, runtime, name) => {
        const both = allows(resolveAllowlist(hook, runtime), name);
        expect(both).toBe(allows(resolveAllowlist(undefined, hook), name) && allows(resolveAllowlist(undefined, runtime), name));
        if (both) expect(allows(resolveAllowlist(undefined, runtime), name)).toBe(true);
      }),
      { numRuns: 500 },
    );
  });
});

describe('AllowlistRepo', () => {
  const inner = new LocalRepo([echoTool, printTool]);
  const repo = new AllowlistRepo(inner, resolveAllowlist(['*', '!print'], ['*']));
  const ctx = testContext({ logger: silentLogger() });

  it('refuses a call outside the list with unauthorized, and hides it', async () => {
    await expect(repo.exec('print', { x: 1 }, ctx)).rejects.toMatchObject({
      kind: 'unauthorized',
      message: expect.stringContaining("tool 'print' is not allowed"),
    });
    expect(await repo.names()).toEqual(['echo']);
    expect(await repo.schema('print')).toBeUndefined();
    expect(await repo.tools('print')).toEqual([]);
  });

  it('passes an allowed call through', async () => {
    await expect(repo.exec('echo', { x: 1 }, ctx)).resolves.toEqual({ x: 1 });
    expect(await repo.tools('echo')).toHaveLength(1);
  });
});
