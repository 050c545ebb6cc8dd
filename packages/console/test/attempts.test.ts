import { collapseAttempts, duration, groupAttempts, rowReason, shorten, whyNotRetried } from '../src/attempts';
import type { Run, RunEvent } from '../src/api';
import { relativeTime } from '../src/times';

const T = Date.parse('2026-03-01T10:00:00.000Z');
const at = (ms: number) => new Date(T + ms).toISOString();
const ev = (ms: number, attempt: number, event: string, detail?: string, extra: Partial<RunEvent> = {}): RunEvent => ({
  at: at(ms),
  attempt,
  event,
  ...(detail ? { detail } : {}),
  ...extra,
});

/** One attempt that failed before its tool acted and was scheduled again. */
function retried(n: number, from: number, detail = 'unavailable: peer down'): RunEvent[] {
  return [ev(from, n, 'claimed', `claimed by exec-${n} (lease 30000 ms)`), ev(from + 40, n, 'retry_scheduled', `${detail}; due at ${at(from + 1000 * n)}`)];
}

describe('console: a run history read per attempt', () => {
  it('groups lines by attempt, with claimed → tool start → tool end durations', () => {
    const http = { status: 500, headers: {}, body: 'x', body_bytes: 1, body_truncated: false };
    const groups = groupAttempts([
      ev(0, 0, 'kept', 'event on orders through the http door, not verified'),
      ev(100, 1, 'claimed'),
      ev(130, 1, 'approval policy', 'allowed by r1'),
      ev(150, 1, 'acted', 'started its tool'),
      ev(1_400, 1, 'failed', 'unavailable: tool answered HTTP 500', { http }),
    ]);
    expect(groups.map((g) => [g.attempt, g.outcome, g.lines.length])).toEqual([
      [0, 'kept', 1],
      [1, 'failed', 4],
    ]);
    expect(groups[1]).toMatchObject({ beforeToolMs: 50, toolMs: 1_250, totalMs: 1_300, http });
    // The keep has no claim: no durations.
    expect(groups[0]).toMatchObject({ beforeToolMs: null, toolMs: null, totalMs: null });
  });

  it('an acted start followed by its withdrawal (the call never left) reads as one line, and no tool time', () => {
    const [g] = groupAttempts([
      ev(0, 1, 'claimed'),
      ev(10, 1, 'acted', 'started its tool'),
      ev(20, 1, 'not_sent', 'its tool call never left: unavailable: connect ECONNREFUSED'),
      ev(25, 1, 'retry_scheduled', 'unavailable: connect ECONNREFUSED; due at 2026-03-01T10:00:01.025Z'),
    ]);
    expect(g!.lines.map((l) => l.event)).toEqual(['claimed', 'not_sent', 'retry_scheduled']);
    expect(g!.lines[1]!.detail).toContain('never left');
    expect(g!.toolMs).toBeNull();
    expect(g!.totalMs).toBe(25);
  });

  it('folds consecutive attempts that ended the same way (times masked), not the keep nor a different end', () => {
    const history = [
      ev(0, 0, 'kept'),
      ...retried(1, 100, 'bad_input: first'),
      ...retried(2, 2_000),
      ...retried(3, 5_000),
      ...retried(4, 9_000),
      ...retried(5, 14_000),
      ev(20_000, 6, 'claimed'),
      ev(20_050, 6, 'failed', 'unavailable: peer down'),
    ];
    const blocks = collapseAttempts(groupAttempts(history));
    expect(blocks.map((b) => (b.kind === 'one' ? b.group.attempt : `${b.from}–${b.to}`))).toEqual([0, 1, '2–5', 6]);
    const same = blocks[2]!;
    expect(same.kind === 'same' && same.groups.map((g) => g.attempt)).toEqual([2, 3, 4, 5]);
    // A different HTTP status is a different failure.
    const withStatus = (n: number, status: number) =>
      retried(n, n * 1000).map((e) =>
        e.event === 'retry_scheduled' ? { ...e, http: { status, headers: {}, body: '', body_bytes: 0, body_truncated: false } } : e,
      );
    const mixed = collapseAttempts(groupAttempts([...withStatus(1, 500), ...withStatus(2, 502), ...withStatus(3, 502)]));
    expect(mixed.map((b) => b.kind)).toEqual(['one', 'same']);
  });

  it('says durations as people read them', () => {
    expect([duration(850), duration(2_400), duration(42_000), duration(185_000), duration(120_000)]).toEqual(['850 ms', '2.4 s', '42 s', '3 min 5 s', '2 min']);
  });
});

describe('console: why a failed run was not retried', () => {
  const failed = (fields: Partial<Run>) => ({ status: 'failed', acted: '', attempts: 1, resumable: false, error: null, ...fields }) as Run;
  it('the tool had been called: held', () => {
    expect(whyNotRetried(failed({ acted: 'start', error: { kind: 'unavailable', message: 'HTTP 500', retryable: true } }))).toMatch(
      /tool had been called.*held/,
    );
  });
  it("an unknown outcome: held for the operator to check and Resolve; an operator's failed verdict says so", () => {
    const unknown = failed({ acted: 'start', error: { kind: 'outcome_unknown', message: 'outcome unknown: interrupted', retryable: false } });
    expect(whyNotRetried(unknown)).toMatch(/outcome is unknown and the tool may have acted.*Resolve the run/);
    expect(whyNotRetried(failed({ acted: 'start', error: { kind: 'operator_failed', message: 'x', retryable: false } }))).toMatch(
      /Resolved failed by an operator/,
    );
  });
  it('a kind no retry can change, from the retryability the API sends', () => {
    expect(whyNotRetried(failed({ error: { kind: 'bad_input', message: 'x', retryable: false } }))).toMatch(/bad_input is a kind no retry can change/);
  });
  it('a retryable kind that used up its attempts; nothing for a run that is not failed', () => {
    expect(whyNotRetried(failed({ attempts: 5, error: { kind: 'timeout', message: 'slow', retryable: true } }))).toMatch(
      /failed 5 times.*HOOKS_RUN_MAX_ATTEMPTS/,
    );
    expect(whyNotRetried({ ...failed({}), status: 'succeeded' })).toBeNull();
  });
});

describe('console: what a runs-list row says', () => {
  const row = (fields: Partial<Run>) => ({ status: 'failed', error: null, result: null, history: [], ...fields }) as Run;
  it('an error: its kind and shortened message, the whole in the title', () => {
    const message = `tool 'svc' answered HTTP 500: ${'boom '.repeat(60)}`;
    const r = rowReason(row({ error: { kind: 'unavailable', message } }));
    expect(r).toMatchObject({ tone: 'error', kind: 'unavailable', full: `unavailable: ${message}` });
    expect(r.text.length).toBeLessThanOrEqual(140);
    expect(r.text).toMatch(/^tool 'svc' answered HTTP 500: boom.*…$/);
    expect(shorten('a\n  b')).toBe('a b');
  });
  it('denied: by whom, or by which rule; not an error', () => {
    expect(rowReason(row({ status: 'denied', result: { message: 'no', rule: 'r1', by: 'ops-lead', via: 'console' } }))).toMatchObject({
      tone: 'denied',
      text: 'denied by ops-lead via console',
    });
    expect(rowReason(row({ status: 'denied', result: { message: 'no deploys on friday', rule: 'friday freeze', policy_version: 3 } }))).toMatchObject({
      text: 'denied by rule friday freeze',
      full: 'denied by rule friday freeze: no deploys on friday',
    });
  });
  it('parked: awaiting approval (rule …), or the interaction kind', () => {
    const asked = ev(10, 1, 'approval requested', 'by prod deploys (deployment rules, policy version 2): ask first');
    const parked = ev(11, 1, 'parked', 'parked on approval i-1 (expires 2026-03-01T11:00:00.000Z)');
    expect(rowReason(row({ status: 'parked', history: [asked, parked] })).text).toBe('awaiting approval (rule prod deploys)');
    expect(rowReason(row({ status: 'parked', history: [ev(5, 1, 'parked', 'parked on wait i-2 (expires 2026-03-01T11:00:00.000Z)')] })).text).toBe(
      'awaiting wait',
    );
  });
});

describe('console: relative times', () => {
  it('reads past and future in the largest whole unit', () => {
    const now = T;
    expect([at(-2_000), at(-42_000), at(-3 * 60_000 - 5), at(5 * 60_000), at(-2 * 3_600_000), at(-4 * 86_400_000)].map((i) => relativeTime(i, now))).toEqual([
      'just now',
      '42 s ago',
      '3 min ago',
      'in 5 min',
      '2 h ago',
      '4 d ago',
    ]);
  });
});
