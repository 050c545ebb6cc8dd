/**
 * The secrets a tool call used never reach what its run keeps: callTool cuts
 * them from the result, the error (message and details), the HTTP reply it
 * hands on, and the lines it logs between the calls of a retry policy.
 */
import { HookyardError, httpExchange } from '@hookyard/core';
import { harness, hook, tableJq, testTool } from './fixtures';

const FIRST = 'sk-live-7f3a9c1e5b2d';
const SECOND = 'sk-live-0e8d6b4f2a1c';
const held = (text: string) => [FIRST, SECOND, Buffer.from(FIRST).toString('base64')].some((s) => text.includes(s));

describe('executor: secrets a call used are cut from what the run keeps', () => {
  it('across a retry policy: the kept result and reply, and the retry log line, hold neither call’s secret', async () => {
    const tool = testTool(
      't',
      async ({ ctx }, n) => {
        const secret = n === 1 ? FIRST : SECOND;
        ctx.onSecret?.(secret);
        if (n === 1) {
          ctx.onHttp?.(httpExchange(503, { 'x-echo': secret }, `down; you sent ${secret}`));
          throw new HookyardError('unavailable', `upstream 503: you sent ${secret}`);
        }
        ctx.onHttp?.(httpExchange(200, {}, JSON.stringify({ got: [FIRST, secret] })));
        return { got: [FIRST, secret], b64: Buffer.from(FIRST).toString('base64'), nested: { [SECOND]: true } };
      },
      { retry: { max_attempts: 2, base_ms: 1, cap_ms: 1, kinds: ['unavailable'] } },
    );
    const h = harness({ jq: tableJq({}), tools: [tool] });
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 't' }));
    const [id] = await h.keep('gh', {});
    await h.executor.handle(id!);
    const run = (await h.stores.runs.get(id!))!;
    expect(run.status).toBe('succeeded');
    expect(run.result).toEqual({ got: ['[redacted]', '[redacted]'], b64: '[redacted]', nested: { '[redacted]': true } });
    expect(run.history.find((e) => e.http)?.http?.body).toBe('{"got":["[redacted]","[redacted]"]}');
    expect(held(JSON.stringify(run))).toBe(false);
    const retryLine = h.lines.find((l) => l.msg === 'tool call failed; its retry policy calls again');
    expect(retryLine?.err).toBe('upstream 503: you sent [redacted]');
    expect(h.lines.some((l) => held(JSON.stringify(l)))).toBe(false);
  });

  it('a failed call: the kept error (message and details) and reply hold no secret; its kind is kept', async () => {
    const tool = testTool('u', async ({ ctx }) => {
      ctx.onSecret?.(`Bearer ${FIRST}`);
      ctx.onHttp?.(httpExchange(401, { 'www-authenticate': 'Bearer' }, `{"error":"invalid token ${FIRST}"}`));
      throw new HookyardError('unauthorized', `answered HTTP 401: "invalid token ${FIRST}"`, { details: [`Bearer ${FIRST}`] });
    });
    const h = harness({ jq: tableJq({}), tools: [tool] });
    await h.stores.hooks.putHook(hook({ name: 'h', topic: 'gh', tool: 'u' }));
    const [id] = await h.keep('gh', {});
    await h.executor.handle(id!);
    const run = (await h.stores.runs.get(id!))!;
    expect(run).toMatchObject({ status: 'failed', error: { kind: 'unauthorized', message: 'answered HTTP 401: "invalid token [redacted]"' } });
    expect(held(JSON.stringify(run))).toBe(false);
    expect(h.lines.some((l) => held(JSON.stringify(l)))).toBe(false);
  });
});
