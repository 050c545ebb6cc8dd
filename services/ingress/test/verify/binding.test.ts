import { redactBinding, validateVerifierBinding } from '../../src/verify';

const now = new Date('2025-01-15T12:00:00.000Z');
const errorsOf = (input: unknown, topic = 'orders') => {
  const result = validateVerifierBinding(topic, input, now);
  if (result.ok) throw new Error(`expected refusal, got ${JSON.stringify(result.binding)}`);
  return result.errors;
};

describe('validateVerifierBinding', () => {
  it('keeps references and fills defaults, header names lower-cased', () => {
    const result = validateVerifierBinding(
      'orders',
      { kind: 'hmac', secrets: ['env:HOOKS_SECRET_A', 'file:/var/run/secrets/hookyard/b'], settings: { header: 'X-Sig', timestamp_header: 'X-Ts' } },
      now,
    );
    expect(result).toEqual({
      ok: true,
      binding: {
        topic: 'orders',
        kind: 'hmac',
        secrets: ['env:HOOKS_SECRET_A', 'file:/var/run/secrets/hookyard/b'],
        settings: { header: 'x-sig', algorithm: 'sha256', encoding: 'hex', prefix: '', timestamp_header: 'x-ts', tolerance_seconds: 300 },
        created_at: '2025-01-15T12:00:00.000Z',
        updated_at: '2025-01-15T12:00:00.000Z',
      },
    });
    const gh = validateVerifierBinding('gh', { kind: 'github', secret: 'env:HOOKS_SECRET_GITHUB_WEBHOOK_SECRET' }, now);
    expect(gh).toMatchObject({ ok: true, binding: { kind: 'github', secrets: ['env:HOOKS_SECRET_GITHUB_WEBHOOK_SECRET'], settings: {} } });
  });

  it('refuses a literal secret without echoing it, and says how to reference it', () => {
    const errors = errorsOf({ kind: 'github', secrets: ['env:HOOKS_SECRET_OK', 'hunter2-literal'] });
    expect(errors).toHaveLength(1);
    expect(errors[0]).toMatch(/^secrets\[1\] looks like a literal secret.*env:NAME or file:\/path$/);
    expect(errors.join()).not.toContain('hunter2');
  });

  it('one line per miss, each naming its field', () => {
    const errors = errorsOf(
      {
        kind: 'hmac',
        secrets: ['env:1BAD', 'file:relative/path', 'env:HOOKS_SECRET_A', 'env:HOOKS_SECRET_A'],
        settings: { header: 'bad header', algorithm: 'md5', encoding: 'base32', prefix: 'has space', tolerance_seconds: 0, extra: 1 },
        header: 'x-top',
        colour: 'blue',
      },
      'Bad Topic',
    );
    expect(errors).toEqual([
      'topic "Bad Topic" must match ^[a-z0-9][a-z0-9_-]*$',
      'header belongs under settings (settings.header)',
      'unknown field "colour"',
      'secrets[0] must name an environment variable matching ^[A-Za-z_][A-Za-z0-9_]{0,127}$ after env:',
      'secrets[1] must be file: followed by an absolute path',
      'secrets[3] repeats secrets[2]',
      'settings.extra is not a setting of kind hmac (known: header, algorithm, encoding, prefix, timestamp_header, tolerance_seconds, delivery_id_header, replay_window_seconds)',
      'settings.header must be an HTTP header name, got "bad header"',
      'settings.algorithm must be one of sha256|sha512|sha1, got "md5"',
      'settings.encoding must be one of hex|base64, got "base32"',
      'settings.prefix must be printable text of at most 32 characters without spaces, got "has space"',
      'settings.tolerance_seconds must be a whole number of seconds from 1 to 86400, got 0',
      'settings.tolerance_seconds needs settings.timestamp_header (without a signed timestamp there is nothing to hold to a window)',
    ]);
  });

  it('refuses an unknown kind, missing secrets, both secret and secrets, allow_get outside shared_secret', () => {
    expect(errorsOf({ kind: 'paypal', secret: 'env:HOOKS_SECRET_A' })).toEqual([
      'kind must be one of shared_secret, hmac, github, stripe, slack, standard-webhooks, got "paypal"',
    ]);
    expect(errorsOf({ kind: 'slack' })).toEqual(['secrets is required: one or more references env:NAME or file:/path (several while rotating)']);
    expect(errorsOf({ kind: 'slack', secret: 'env:HOOKS_SECRET_A', secrets: ['env:HOOKS_SECRET_B'] })).toEqual(['give either secret or secrets, not both']);
    expect(errorsOf({ kind: 'stripe', secret: 'env:HOOKS_SECRET_A', settings: { allow_get: true } })[0]).toMatch(
      /^settings\.allow_get is not a setting of kind stripe/,
    );
    expect(errorsOf({ kind: 'stripe', secrets: [] })).toEqual(['secrets must be a list of 1 to 5 references env:NAME or file:/path']);
    expect(errorsOf('nope')[0]).toMatch(/^the verifier must be a JSON object/);
  });

  it('replay_window_seconds may lengthen, never shorten below twice the tolerance', () => {
    expect(validateVerifierBinding('s', { kind: 'stripe', secret: 'env:HOOKS_SECRET_S', settings: { replay_window_seconds: 259200 } }, now)).toMatchObject({
      ok: true,
    });
    expect(errorsOf({ kind: 'stripe', secret: 'env:HOOKS_SECRET_S', settings: { replay_window_seconds: 100 } })).toEqual([
      'settings.replay_window_seconds must be at least 2 × tolerance_seconds (600), got 100',
    ]);
  });
});

describe('redactBinding', () => {
  it('shows references, masks anything that is not one', () => {
    const result = validateVerifierBinding('orders', { kind: 'slack', secrets: ['env:HOOKS_SECRET_SLACK_SIGNING_SECRET'] }, now);
    if (!result.ok) throw new Error(result.errors.join());
    expect(redactBinding(result.binding).secrets).toEqual(['env:HOOKS_SECRET_SLACK_SIGNING_SECRET']);
    const tampered = { ...result.binding, secrets: ['env:HOOKS_SECRET_OK', 'raw-secret-value'] };
    const shown = JSON.stringify(redactBinding(tampered));
    expect(shown).not.toContain('raw-secret-value');
    expect(redactBinding(tampered).secrets).toEqual(['env:HOOKS_SECRET_OK', '<redacted: not a reference>']);
  });
});
