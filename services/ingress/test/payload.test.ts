import { parsePayload, splitContentType } from '../src/door/payload';
import { exceedsJsonDepth } from '../src/door/json-depth';

const B = (s: string | Buffer) => (typeof s === 'string' ? Buffer.from(s, 'utf8') : s);

function multipart(parts: { name: string; value: string; filename?: string }[], boundary = 'XyZ'): Buffer {
  const lines: string[] = [];
  for (const p of parts) {
    lines.push(`--${boundary}`);
    const fn = p.filename === undefined ? '' : `; filename="${p.filename}"`;
    lines.push(`Content-Disposition: form-data; name="${p.name}"${fn}`);
    if (p.filename !== undefined) lines.push('Content-Type: application/octet-stream');
    lines.push('', p.value);
  }
  lines.push(`--${boundary}--`, '');
  return Buffer.from(lines.join('\r\n'));
}

describe('parsePayload accepts every content type', () => {
  const cases: [string, string | undefined, Buffer, string, unknown][] = [
    ['JSON object', 'application/json', B('{"a":1,"b":{"c":[1,2]}}'), '', { a: 1, b: { c: [1, 2] } }],
    ['JSON object + query, body wins', 'application/json; charset=utf-8', B('{"a":1}'), 'a=9&q=x', { a: 1, q: 'x' }],
    ['vendor +json', 'application/vnd.github+json', B('{"x":true}'), '', { x: true }],
    ['JSON array', 'application/json', B('[1,2]'), '', { body: [1, 2] }],
    ['JSON scalar string', 'application/json', B('"hi"'), 'q=1', { q: '1', body: 'hi' }],
    ['JSON null', 'application/json', B('null'), '', { body: null }],
    ['JSON with BOM', 'application/json', Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), B('{"a":2}')]), '', { a: 2 }],
    ['urlencoded', 'application/x-www-form-urlencoded', B('a=1&b=two+words&a=3'), '', { a: ['1', '3'], b: 'two words' }],
    ['urlencoded __proto__ stays a field', 'application/x-www-form-urlencoded', B('__proto__=x'), '', JSON.parse('{"__proto__":"x"}')],
    [
      'multipart fields',
      'multipart/form-data; boundary=XyZ',
      multipart([
        { name: 'a', value: '1' },
        { name: 'b', value: 'é' },
      ]),
      'q=z',
      { q: 'z', a: '1', b: 'é' },
    ],
    ['text/plain', 'text/plain', B('hello\nworld'), '', { raw_body: 'hello\nworld' }],
    ['text latin1', 'text/plain; charset=ISO-8859-1', Buffer.from([0x63, 0x61, 0x66, 0xe9]), '', { raw_body: 'café' }],
    [
      'XML is text, no entities',
      'application/xml',
      B('<!DOCTYPE x [<!ENTITY e "boom">]><x>&e;</x>'),
      '',
      { raw_body: '<!DOCTYPE x [<!ENTITY e "boom">]><x>&e;</x>' },
    ],
    ['text/xml', 'text/xml', B('<a/>'), '', { raw_body: '<a/>' }],
    ['octet-stream', 'application/octet-stream', Buffer.from([0, 1, 2, 255]), '', { raw_body_base64: 'AAEC/w==' }],
    ['no content type', undefined, B('abc'), '', { raw_body_base64: 'YWJj' }],
    ['unknown charset text -> base64', 'text/plain; charset=shift_jis', B('abc'), '', { raw_body_base64: 'YWJj' }],
    ['empty body', 'application/json', Buffer.alloc(0), '', {}],
    ['empty body with query', 'application/json', Buffer.alloc(0), 'x=1&y=2', { x: '1', y: '2' }],
  ];
  it.each(cases)('%s', async (_label, contentType, rawBody, query, expected) => {
    const r = await parsePayload({ contentType, rawBody, query });
    expect(r).toEqual({ ok: true, payload: expected });
  });
});

describe('parsePayload refuses bodies that do not parse as declared (400)', () => {
  const deep = '['.repeat(65) + ']'.repeat(65);
  const cases: [string, string | undefined, Buffer, RegExp][] = [
    ['bad JSON quotes the parser', 'application/json', B('{"a":'), /^body is not valid JSON: .*JSON/],
    ['invalid UTF-8 in JSON', 'application/json', Buffer.from([0x7b, 0x22, 0xff, 0x22, 0x7d]), /not valid UTF-8/],
    ['invalid UTF-8 in text', 'text/plain', Buffer.from([0xc3, 0x28]), /not valid UTF-8/],
    ['invalid UTF-8 in urlencoded', 'application/x-www-form-urlencoded', Buffer.from([0x61, 0x3d, 0xff]), /not valid UTF-8/],
    ['JSON deeper than 64', 'application/json', B(deep), /deeper than 64/],
    ['JSON in another charset', 'application/json; charset=utf-16', B('{}'), /must be UTF-8/],
    ['multipart without boundary', 'multipart/form-data', B('x'), /multipart form could not be read: .*[Bb]oundary/],
    [
      'multipart truncated',
      'multipart/form-data; boundary=XyZ',
      B('--XyZ\r\nContent-Disposition: form-data; name="a"\r\n\r\nabc'),
      /multipart form could not be read: /,
    ],
    [
      'multipart with a file',
      'multipart/form-data; boundary=XyZ',
      multipart([
        { name: 'a', value: '1' },
        { name: 'up', value: 'data', filename: 'x.bin' },
      ]),
      /part 'up' carries a file/,
    ],
  ];
  it.each(cases)('%s', async (_label, contentType, rawBody, message) => {
    const r = await parsePayload({ contentType, rawBody, query: '' });
    expect(r.ok).toBe(false);
    if (r.ok) return;
    expect(r.status).toBe(400);
    expect(r.body.status).toBe('rejected');
    expect(r.body.error).toMatch(message);
  });

  it('accepts nesting of exactly 64', async () => {
    const r = await parsePayload({ contentType: 'application/json', rawBody: B('['.repeat(64) + ']'.repeat(64)), query: '' });
    expect(r.ok).toBe(true);
  });
});

describe('helpers', () => {
  it('splitContentType lowercases and reads charset', () => {
    expect(splitContentType('Text/Plain; Charset="UTF-8"')).toEqual({ mediaType: 'text/plain', charset: 'utf-8' });
    expect(splitContentType(undefined)).toEqual({ mediaType: '', charset: undefined });
  });
  it('exceedsJsonDepth ignores brackets inside strings', () => {
    expect(exceedsJsonDepth(JSON.stringify({ s: '['.repeat(100) }), 2)).toBe(false);
    expect(exceedsJsonDepth('{"a":{"b":{}}}', 2)).toBe(true);
    expect(exceedsJsonDepth('{"a":"\\"[[[["}', 1)).toBe(false);
  });
});
