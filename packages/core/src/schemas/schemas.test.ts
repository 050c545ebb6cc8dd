import { validateMessage } from './validate';

const summary = {
  run_id: 'r-1',
  event: 'finished',
  at: '2025-01-01T00:00:01.250Z',
  hook: 'greet',
  topic: 'demo',
  status: 'failed',
  attempts: 3,
  error_kind: 'unavailable',
  error_message: 'tool service down',
  created_at: '2025-01-01T00:00:00.000Z',
  finished_at: '2025-01-01T00:00:01.250Z',
  due_at: null,
  duration_ms: 1250,
};

describe('validateMessage', () => {
  it('accepts a run summary, also a succeeded one with nulls', () => {
    expect(validateMessage('run_summary', summary)).toEqual({ ok: true });
    expect(validateMessage('run_summary', { ...summary, status: 'succeeded', error_kind: null, error_message: null, duration_ms: null })).toEqual({ ok: true });
  });

  it('accepts every transition event and refuses an unknown one', () => {
    const accepted = {
      ...summary,
      event: 'accepted',
      status: 'pending',
      attempts: 0,
      error_kind: null,
      error_message: null,
      finished_at: null,
      duration_ms: null,
    };
    expect(validateMessage('run_summary', accepted)).toEqual({ ok: true });
    expect(
      validateMessage('run_summary', { ...summary, event: 'retry_scheduled', status: 'retry_wait', finished_at: null, due_at: '2025-01-01T00:00:02.000Z' }),
    ).toEqual({ ok: true });
    const bad = validateMessage('run_summary', { ...summary, event: 'exploded' });
    expect(bad.ok).toBe(false);
    expect((bad as { errors: string[] }).errors.join('\n')).toMatch(/\/event must be equal to one of the allowed values/);
  });

  it('names every miss of a bad run summary', () => {
    const r = validateMessage('run_summary', { ...summary, status: 'exploded', attempts: -1, created_at: 'yesterday', extra: 1 });
    expect(r.ok).toBe(false);
    const lines = (r as { errors: string[] }).errors.join('\n');
    expect(lines).toMatch(/\/status must be equal to one of the allowed values/);
    expect(lines).toMatch(/\/attempts must be >= 0/);
    expect(lines).toMatch(/\/created_at must match format "date-time"/);
    expect(lines).toMatch(/must NOT have additional properties/);
  });

  it('accepts the hooks_run_failed payload and refuses one without an error shape', () => {
    const event = {
      run_id: 'r-1',
      hook: 'greet',
      topic: 'demo',
      attempts: 1,
      error: { kind: 'bad_input', message: 'condition raised' },
      acted: '',
      failed_at: '2025-01-01T00:00:01.000Z',
    };
    expect(validateMessage('run_failed_event', event)).toEqual({ ok: true });
    expect(validateMessage('run_failed_event', { ...event, error: { kind: 'oops' } }).ok).toBe(false);
  });

  it('checks topics against the name pattern and ingest headers', () => {
    expect(validateMessage('topic', 'orders')).toEqual({ ok: true });
    expect(validateMessage('topic', 'orders.eu').ok).toBe(false);
    expect(validateMessage('ingest_headers', { 'Nats-Msg-Id': 'a', 'Content-Type': 'application/json', 'X-Other': 'y' })).toEqual({ ok: true });
    expect(validateMessage('ingest_headers', { 'Nats-Msg-Id': '' }).ok).toBe(false);
    expect(validateMessage('ingest_event', { any: ['thing'] })).toEqual({ ok: true });
  });

  it('refuses an unknown kind', () => {
    expect(validateMessage('nope' as never, {})).toEqual({ ok: false, errors: ['unknown message kind "nope"'] });
  });
});
