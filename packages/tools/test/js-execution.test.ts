import { jsExecutionTool } from '../src/local/js-execution';
import { testContext } from './support/context';

const ctx = testContext();
const tool = jsExecutionTool({ timeoutMs: 300, memoryBytes: 16 * 1024 * 1024, hardKillGraceMs: 500 });
afterAll(() => tool.close());
/**
 * A snippet expected to finish runs under a generous bound (a cold sandbox on a busy machine can take more
 * than 300 ms to set up); the ones expected to be cut off run under the tool's own 300 ms.
 */
const generous = testContext({ timeoutMs: 10_000 });
const run = (args: Record<string, unknown>) => tool.run(args, generous);
const tight = (args: Record<string, unknown>) => tool.run(args, ctx);

describe('js_execution', () => {
  it('returns the value of the last expression, with the payload as input', async () => {
    await expect(run({ code: 'input.a + input.b', input: { a: 2, b: 3 } })).resolves.toEqual({ ok: true, value: 5 });
    await expect(run({ code: '({ n: input.items.length, up: input.name.toUpperCase() })', items: [1, 2], name: 'x' })).resolves.toEqual({
      ok: true,
      value: { n: 2, up: 'X' },
    });
    await expect(run({ code: 'undefined' })).resolves.toEqual({ ok: true, value: null });
  });

  it('script errors come back in the result', async () => {
    await expect(run({ code: 'throw new TypeError("bad thing")' })).resolves.toEqual({ ok: false, error: 'TypeError: bad thing' });
    await expect(run({ code: 'this is not js' })).resolves.toMatchObject({ ok: false, error: expect.stringContaining('SyntaxError') });
    await expect(run({ code: 'const o = {}; o.self = o; o' })).resolves.toMatchObject({ ok: false, error: expect.stringContaining('not JSON') });
  });

  it('has no Node or host APIs', async () => {
    await expect(run({ code: 'typeof require + "," + typeof process + "," + typeof fetch' })).resolves.toEqual({
      ok: true,
      value: 'undefined,undefined,undefined',
    });
  });

  it('cuts an infinite loop off at the limit as a timeout error (never a result), then runs the next snippet', async () => {
    await expect(tight({ code: 'while (true) {}' })).rejects.toMatchObject({
      kind: 'timeout',
      message: 'js_execution: the snippet ran past 300 ms and was interrupted',
    });
    await expect(tight({ code: 'for (;;) { try { while (true) {} } catch (e) {} }' })).rejects.toMatchObject({
      kind: 'timeout',
      message: expect.stringContaining('interrupted'),
    });
    await expect(run({ code: '1 + 1' })).resolves.toEqual({ ok: true, value: 2 });
  });

  describe("the call's time bound (ctx.timeoutMs, the live tool timeout)", () => {
    // Busy until 800 ms have passed: clearly past 300 ms and clearly within 3 s.
    const busy = 'const until = Date.now() + 800; let n = 0; while (Date.now() < until) n++; "done"';
    const capped = jsExecutionTool({ timeoutMs: 300, maxTimeoutMs: 400 });
    afterAll(() => capped.close());

    it('is the bound a snippet runs under, not the one the tool was built with', async () => {
      await expect(tool.run({ code: busy }, testContext({ timeoutMs: 3000 }))).resolves.toEqual({ ok: true, value: 'done' });
      await expect(tool.run({ code: 'while (true) {}' }, testContext({ timeoutMs: 100 }))).rejects.toMatchObject({
        kind: 'timeout',
        message: 'js_execution: the snippet ran past 100 ms and was interrupted',
      });
    });

    it('stays under the longest bound the tool was built with (maxTimeoutMs)', async () => {
      await expect(capped.run({ code: busy }, testContext({ timeoutMs: 3000 }))).rejects.toMatchObject({
        kind: 'timeout',
        message: 'js_execution: the snippet ran past 400 ms and was interrupted',
      });
    });
  });

  it('stops a memory bomb, then runs the next snippet', async () => {
    const bomb = await run({ code: 'let s = "x"; while (true) s = s + s;' });
    expect(bomb).toEqual({ ok: false, error: 'InternalError: out of memory' });
    await expect(run({ code: '"x".repeat(1e9)' })).resolves.toMatchObject({ ok: false });
    await expect(run({ code: 'function f() { return f(); } f()' })).resolves.toMatchObject({ ok: false });
    await expect(run({ code: 'input.v * 2', input: { v: 21 } })).resolves.toEqual({ ok: true, value: 42 });
  });

  it('stops a snippet stuck inside a builtin by terminating its thread, then runs the next snippet', async () => {
    // fill() on a holey array runs in C for seconds, out of the interrupt handler's reach.
    // Out of memory first is the snippet's own failure (a result); its thread stopped at the bound is a timeout.
    const stuck = await tight({ code: 'const a = []; while (true) a.push(new Array(100000).fill("x"));' }).catch((err: unknown) => err);
    if ((stuck as { ok?: unknown }).ok === false) expect(stuck).toEqual({ ok: false, error: 'InternalError: out of memory' });
    else expect(stuck).toMatchObject({ kind: 'timeout', message: expect.stringMatching(/ran past 300 ms/) });
    await expect(run({ code: '[input.k]', input: { k: 'after' } })).resolves.toEqual({ ok: true, value: ['after'] });
  });

  it('an aborted call is cancelled and the sandbox stays usable', async () => {
    const ac = new AbortController();
    const pending = tool.run({ code: 'while (true) {}' }, { ...ctx, signal: ac.signal });
    setTimeout(() => ac.abort(), 50);
    await expect(pending).rejects.toMatchObject({ kind: 'cancelled' });
    await expect(run({ code: '3' })).resolves.toEqual({ ok: true, value: 3 });
  });

  it('code must be a string', async () => {
    await expect(run({ code: 42 })).rejects.toMatchObject({ kind: 'bad_input' });
  });
});
