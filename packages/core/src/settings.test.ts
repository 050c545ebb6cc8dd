import { loadSettings } from './settings';

describe('settings', () => {
  it('keeps fractional rates as given: 0.1 is one request per 10 s, not 0 (which turns the limiter off)', () => {
    const s = loadSettings({ HOOKS_DOOR_RATE: '0.1', HOOKS_API_RATE: '0.25' });
    expect(s.doorRate).toBe(0.1);
    expect(s.apiRate).toBe(0.25);
    expect(loadSettings({ HOOKS_DOOR_RATE: '0.4' }).doorRate).toBe(0.4);
    expect(loadSettings({}).doorRate).toBe(200);
  });

  it('still rounds durations to whole ms', () => {
    expect(loadSettings({ HOOKS_RUN_LEASE_SECONDS: '0.0505' }).leaseMs).toBe(51);
  });

  it('refuses a short API token naming the variable, the role and its length, never the token', () => {
    let err: unknown;
    try {
      loadSettings({ HOOKS_API_TOKENS: 'operator:sh0rt-s3cret' });
    } catch (e) {
      err = e;
    }
    expect(String(err)).toContain('HOOKS_API_TOKENS');
    expect(String(err)).toContain('the operator token has 12 characters; a token needs at least 16');
    expect(String(err)).not.toContain('sh0rt-s3cret');
  });

  it('event streams: 200 per ingress and 8 per token by default; a per-token cap that leaves readers nothing is refused naming it', () => {
    expect(loadSettings({})).toMatchObject({ eventStreamsMax: 200, eventStreamsPerToken: 8 });
    expect(loadSettings({ HOOKS_EVENT_STREAMS_MAX: '10', HOOKS_EVENT_STREAMS_PER_TOKEN: '9' })).toMatchObject({ eventStreamsMax: 10, eventStreamsPerToken: 9 });
    expect(() => loadSettings({ HOOKS_EVENT_STREAMS_MAX: '10', HOOKS_EVENT_STREAMS_PER_TOKEN: '10' })).toThrow(
      'HOOKS_EVENT_STREAMS_PER_TOKEN: must be less than HOOKS_EVENT_STREAMS_MAX (10): that many streams are kept for operator and admin tokens, and readers need at least one',
    );
    expect(() => loadSettings({ HOOKS_EVENT_STREAMS_PER_TOKEN: '0' })).toThrow('HOOKS_EVENT_STREAMS_PER_TOKEN: must be >= 1, got 0');
  });
});
