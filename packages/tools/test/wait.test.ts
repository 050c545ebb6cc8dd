import { HookyardError, silentLogger } from '@hookyard/core';
import { isParkRequest, waitTool } from '../src';

const ctx = { runId: 'r', hook: 'h', attempt: 1, idempotencyKey: 'r', extras: {}, signal: new AbortController().signal, logger: silentLogger() };

describe('wait', () => {
  it('answers a park request: a wait interaction expiring after timeout_seconds, on_timeout fail by default', async () => {
    const req = await waitTool.run({ timeout_seconds: 90 }, ctx);
    expect(isParkRequest(req)).toBe(true);
    expect(req).toMatchObject({ kind: 'wait', timeoutMs: 90_000, onTimeout: 'fail' });
    expect(await waitTool.run({ timeout_seconds: 1, on_timeout: 'succeed' }, ctx)).toMatchObject({ onTimeout: 'succeed' });
    expect(isParkRequest({ kind: 'wait', timeoutMs: 1, onTimeout: 'fail' })).toBe(false);
    expect(waitTool.info).toMatchObject({ crashResumable: true, parameters: { required: ['timeout_seconds'], additionalProperties: false } });
  });

  it.each([
    [{}, 'timeout_seconds must be a whole number from 1 to 2592000, got undefined'],
    [{ timeout_seconds: 0 }, 'got 0'],
    [{ timeout_seconds: 1.5 }, 'got 1.5'],
    [{ timeout_seconds: 5, on_timeout: 'deny' }, 'on_timeout must be one of fail, succeed, got "deny"'],
    [{ timeout_seconds: 5, later: 1 }, "unknown argument 'later'"],
  ])('refuses %j as bad_input quoting what it got', async (args, message) => {
    const err = await waitTool.run(args as Record<string, unknown>, ctx).catch((e: unknown) => e);
    expect(err).toBeInstanceOf(HookyardError);
    expect((err as HookyardError).kind).toBe('bad_input');
    expect((err as HookyardError).message).toContain(message);
  });
});
