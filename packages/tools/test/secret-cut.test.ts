/**
 * The cut of one call's secrets from what a run keeps of it (result, error,
 * HTTP reply): every form a secret is echoed in, deep through nested JSON
 * (keys too), truncated tails, and a floor under which nothing is cut.
 */
import { HookyardError, REDACTED, httpExchange, quote } from '@hookyard/core';
import { PolicyRefusal } from '../src/approval/approval-repo';
import { SECRET_CUT_MIN_CHARS, SecretCut, secretForms } from '../src/secret-cut';

const TOKEN = 'xoxb-2718281828-3141592653-Zm9vYmFy/+q';
const BEARER = `Bearer ${TOKEN}`;

function cutOf(...secrets: string[]): SecretCut {
  const cut = new SecretCut();
  for (const s of secrets) cut.add(s);
  return cut;
}

/** True when `text` holds the secret in any form a reader could turn back into it. */
function holds(text: string, secret: string): boolean {
  return secretForms(secret).some((f) => text.includes(f));
}

describe('SecretCut', () => {
  it('cuts a secret and its base64, base64url, URL-encoded and JSON-escaped forms deep through nested JSON, keys included', () => {
    const cut = cutOf(BEARER);
    const b64 = Buffer.from(BEARER).toString('base64');
    const result = {
      echoed: { headers: { authorization: BEARER }, list: [1, [`token=${TOKEN}`]] },
      b64,
      b64url: Buffer.from(TOKEN).toString('base64url'),
      url: `https://x.example/?auth=${encodeURIComponent(BEARER)}`,
      lower: encodeURIComponent(TOKEN).replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
      form: new URLSearchParams({ a: BEARER }).toString(),
      php: JSON.stringify(TOKEN).replaceAll('/', '\\/'),
      // Inside a longer base64 text at each alignment (a reply that quotes request bytes in base64).
      shifted: ['', 'a', 'ab'].map((p) => Buffer.from(`${p}Authorization: ${BEARER}\r\n`).toString('base64')),
      [TOKEN]: 'a key that is the secret',
      untouched: { n: 42, ok: true, text: 'nothing here' },
    };
    const out = cut.value(result) as typeof result;
    const text = JSON.stringify(out);
    expect(holds(text, BEARER)).toBe(false);
    expect(holds(text, TOKEN)).toBe(false);
    for (const s of out.shifted) expect(Buffer.from(s, 'base64').toString('latin1')).not.toContain(TOKEN.slice(2, -2));
    expect(out.echoed.headers.authorization).toBe(REDACTED);
    expect(out.echoed.list).toEqual([1, [`token=${REDACTED}`]]);
    expect(out[REDACTED as typeof TOKEN]).toBe('a key that is the secret');
    // What held no secret is the same object, and the input is not changed.
    expect(out.untouched).toBe(result.untouched);
    expect(result.echoed.headers.authorization).toBe(BEARER);
  });

  it('a Basic value: its credential, the decoded user:password and the password are cut; the scheme and user name alone are not', () => {
    const basic = `Basic ${Buffer.from('deploy-bot:hunter2-pass').toString('base64')}`;
    const cut = cutOf(basic);
    expect(cut.text(`sent ${basic}; user deploy-bot:hunter2-pass; pw=hunter2-pass; Basic auth for deploy-bot`)).toBe(
      `sent ${REDACTED}; user ${REDACTED}; pw=${REDACTED}; Basic auth for deploy-bot`,
    );
  });

  it('two keys that both held a secret stay two entries', () => {
    const out = cutOf(TOKEN).value({ [TOKEN]: 1, [encodeURIComponent(TOKEN)]: 2, [Buffer.from(TOKEN).toString('base64')]: 3 });
    expect(out).toEqual({ [REDACTED]: 1, [`${REDACTED}#2`]: 2, [`${REDACTED}#3`]: 3 });
  });

  it('a result that holds no secret is returned as it is; with no secret told nothing is walked', () => {
    const result = { a: [{ b: 'c' }] };
    expect(cutOf(TOKEN).value(result)).toBe(result);
    const cut = new SecretCut();
    expect(cut.empty).toBe(true);
    expect(cut.value(result)).toBe(result);
  });

  it('a number whose digits are the secret is cut', () => {
    expect(cutOf('90210735').value({ pin: 90210735, other: 7 })).toEqual({ pin: REDACTED, other: 7 });
  });

  it(`a secret under ${SECRET_CUT_MIN_CHARS} characters is not cut; one of ${SECRET_CUT_MIN_CHARS} is`, () => {
    const short = cutOf('abc');
    expect(short.empty).toBe(true);
    expect(short.value({ t: 'abc abcd' })).toEqual({ t: 'abc abcd' });
    expect(cutOf('abcd').text('x abcd y')).toBe(`x ${REDACTED} y`);
    expect(secretForms('abc')).toEqual([]);
    for (const f of secretForms('abcd')) expect(f.length).toBeGreaterThanOrEqual(SECRET_CUT_MIN_CHARS);
  });

  it('a secret cut short by a truncation (a body excerpt, a quoted error body, a header value cut with …) is cut too', () => {
    const cut = cutOf(BEARER);
    const body = `{"you sent":"${BEARER}"}`;
    const excerpt = body.slice(0, body.indexOf(TOKEN) + 12);
    expect(cut.text(excerpt)).toBe(`{"you sent":"Bearer ${REDACTED}`);
    expect(cut.text('a Polar Bear')).toBe('a Polar Bear');
    const quoted = `tool 'echo' answered HTTP 401: ${quote(`${'x'.repeat(180)} ${BEARER}`)}`;
    expect(holds(quoted, TOKEN)).toBe(false); // only a start of it survives the quote
    expect(quoted).toContain(TOKEN.slice(0, 8));
    expect(cut.text(quoted)).not.toContain(TOKEN.slice(0, SECRET_CUT_MIN_CHARS));
    expect(cut.text(`v=${TOKEN.slice(0, 20)}…`)).toBe(`v=${REDACTED}…`);
  });

  it('an error keeps its class, kind and what it knows of the call; message, details and stack are cut', () => {
    const cut = cutOf(BEARER);
    const e = new HookyardError('unauthorized', `answered 401: ${quote(`bad token ${BEARER}`)}`, {
      details: [`sent ${TOKEN}`, 'fine'],
      notSent: false,
      outcomeUnknown: true,
      cause: new Error('inner'),
    });
    const out = cut.error(e);
    expect(out).toBeInstanceOf(HookyardError);
    expect(out.kind).toBe('unauthorized');
    expect(out.outcomeUnknown).toBe(true);
    expect(out.message).toBe(`answered 401: "bad token ${REDACTED}"`);
    expect(out.details).toEqual([`sent ${REDACTED}`, 'fine']);
    expect(out.stack).not.toContain(TOKEN);
    expect(out.cause).toBe(e.cause);
    expect(out.toInfo()).toEqual({ kind: 'unauthorized', message: out.message });
    const refusal = new PolicyRefusal({ action: 'deny', message: `no ${TOKEN}`, rule: null } as never);
    expect(cut.error(refusal)).toBeInstanceOf(PolicyRefusal);
    const clean = new HookyardError('timeout', 'slow');
    expect(cut.error(clean)).toBe(clean);
  });

  it('an HTTP exchange: header names and values and the body are cut; status and sizes stay numbers', () => {
    const cut = cutOf(BEARER);
    const x = httpExchange(200, { 'x-echo': BEARER, 'content-type': 'application/json' }, JSON.stringify({ auth: BEARER, pad: 'y'.repeat(4000) }));
    const out = cut.http(x);
    expect(out.headers['x-echo']).toBe(REDACTED);
    expect(out.headers['content-type']).toBe('application/json');
    expect(out.body.startsWith(`{"auth":"${REDACTED}"`)).toBe(true);
    expect([out.status, out.body_bytes, out.body_truncated]).toEqual([200, x.body_bytes, true]);
  });
});
