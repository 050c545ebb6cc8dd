import { toHookyardError } from './errors';

describe('toHookyardError: a wrapped connection error keeps notSent', () => {
  it("fetch's TypeError('fetch failed') over an ECONNREFUSED cause is unavailable and not sent", () => {
    // As undici throws it in a process: wrapper and cause are Errors of the same realm.
    const cause = Object.assign(new Error('connect ECONNREFUSED 127.0.0.1:9'), { code: 'ECONNREFUSED' });
    const e = toHookyardError(new TypeError('fetch failed', { cause }));
    expect(e.kind).toBe('unavailable');
    expect(e.notSent).toBe(true);
  });

  it('a reset after the request left stays sent', () => {
    const cause = Object.assign(new Error('read ECONNRESET'), { code: 'ECONNRESET' });
    const e = toHookyardError(new TypeError('fetch failed', { cause }));
    expect(e.kind).toBe('unavailable');
    expect(e.notSent).toBeFalsy();
  });
});
