import { readFileSync, readdirSync } from 'node:fs';
import { join } from 'node:path';
import { REPLY_CODES, checkReply } from '../src/redis/replies';
import { PLANNED_CLAIM_ARGS } from '../src/redis/planned-claim-args';
import { RUN_HEAD_FIELDS, headFields } from '../src/redis/run-hash';

const LUA = join(__dirname, '..', 'src', 'redis', 'lua');
const lua = (name: string) => readFileSync(join(LUA, `${name}.lua`), 'utf8');

describe('Lua scripts name their refusals and arguments once', () => {
  it('the codes fragment and REPLY_CODES hold the same names and codes, and every code maps to its own error', () => {
    const inLua = Object.fromEntries([...lua('codes').matchAll(/^local ERR_([A-Z_]+) = (-\d+)/gm)].map((m) => [m[1]!.toLowerCase(), Number(m[2])]));
    expect(inLua).toEqual(REPLY_CODES);
    expect(new Set(Object.values(REPLY_CODES)).size).toBe(Object.keys(REPLY_CODES).length);
    for (const [name, code] of Object.entries(REPLY_CODES)) {
      const ctx = { op: 'test', id: 'r1', token: 1, topic: 't', expected: 1 };
      expect(() => checkReply(ctx, [code, 'x', '[]', 'y', 0])).toThrow(expect.objectContaining({ message: expect.not.stringMatching(/unknown code/) }));
      expect(name).toMatch(/^[a-z_]+$/);
    }
    expect(() => checkReply({ op: 'test' }, [-99])).toThrow('store script test answered unknown code -99');
  });

  it('no script answers a bare negative code: each refusal is ERR_<NAME>', () => {
    for (const file of readdirSync(LUA).filter((f) => f.endsWith('.lua'))) {
      const code = readFileSync(join(LUA, file), 'utf8')
        .split('\n')
        .filter((line) => !line.trimStart().startsWith('--'));
      expect({ file, bare: code.filter((line) => /return (nil, )?\{ -\d/.test(line)) }).toEqual({ file, bare: [] });
      // A misspelt name would be a nil global, not a code: every name used is one codes.lua declares.
      const names = [...code.join('\n').matchAll(/ERR_([A-Z_]+)/g)].map((m) => m[1]!.toLowerCase());
      expect({ file, unknown: names.filter((n) => !(n in REPLY_CODES)) }).toEqual({ file, unknown: [] });
    }
  });

  it('run_head answers the values of the fields the store names, in its order', () => {
    const listed = /^local HEAD_FIELDS = \{([^}]*)\}/m.exec(lua('transitions'));
    expect([...(listed?.[1] ?? '').matchAll(/'([a-z_]+)'/g)].map((m) => m[1])).toEqual([...RUN_HEAD_FIELDS]);
    // An absent field (HMGET's nil) is left out, as HGETALL would.
    expect(headFields(['r1', 'h', null, 'pending'])).toEqual({ id: 'r1', hook: 'h', status: 'pending' });
  });

  it('claim_planned names its ARGV once, in the order the store sends them', () => {
    const unpacked = /^local ([a-z_,\s]+) = unpack\(ARGV, 3, (\d+)\)$/m.exec(lua('claim_planned'));
    // ARGV 1 and 2 are the partition tag and the run id of every run script (script_ctx).
    expect(unpacked?.[1]?.split(/,\s*/)).toEqual([...PLANNED_CLAIM_ARGS]);
    expect(Number(unpacked?.[2])).toBe(PLANNED_CLAIM_ARGS.length + 2);
  });

  it('claim and claim_planned share the claim steps instead of copying them', () => {
    for (const name of ['claim', 'claim_planned']) {
      expect(lua(name)).toContain('--!include claim_steps');
      expect(lua(name)).not.toMatch(/HINCRBY', c\.run, 'attempts'/);
    }
  });
});
