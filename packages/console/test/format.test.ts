import { atLeast, eventIdOf, query, type Role } from '../src/api';
import { relativeTime, time } from '../src/times';

/** What the console prints and the queries it asks: pure helpers every page uses. */
describe('console: times, roles and query strings', () => {
  const now = Date.parse('2026-03-01T10:00:00.000Z');
  const ago = (ms: number) => new Date(now - ms).toISOString();

  it('says how long ago at each unit boundary, and how soon for a time ahead', () => {
    expect(relativeTime(ago(4_999), now)).toBe('just now');
    expect(relativeTime(ago(-4_999), now)).toBe('just now');
    expect(relativeTime(ago(5_000), now)).toBe('5 s ago');
    expect(relativeTime(ago(59_999), now)).toBe('59 s ago');
    expect(relativeTime(ago(60_000), now)).toBe('1 min ago');
    expect(relativeTime(ago(3_600_000), now)).toBe('1 h ago');
    expect(relativeTime(ago(86_400_000 - 1), now)).toBe('23 h ago');
    expect(relativeTime(ago(86_400_000), now)).toBe('1 d ago');
    expect(relativeTime(ago(-2 * 3_600_000), now)).toBe('in 2 h');
  });

  it('shows a time it cannot read as given, and none as a dash', () => {
    expect(relativeTime('not a time', now)).toBe('not a time');
    expect(time('not a time')).toBe('not a time');
    for (const none of [null, undefined, '']) expect(time(none)).toBe('—');
    // A real time: 24-hour clock with seconds, whatever the machine's locale and zone.
    expect(time('2026-03-01T10:00:00.000Z')).toMatch(/\b\d{1,2}:\d{2}:\d{2}\b/);
    expect(time('2026-03-01T15:00:00.000Z')).not.toMatch(/\b(AM|PM)\b/i);
  });

  it('ranks roles as the API does: each role can do what the weaker ones can', () => {
    const roles: Role[] = ['reader', 'operator', 'admin'];
    const table = roles.map((r) => roles.map((min) => atLeast(r, min)));
    expect(table).toEqual([
      [true, false, false],
      [true, true, false],
      [true, true, true],
    ]);
  });

  it('builds a query string from the set values only (0 is set; empty, null and undefined are not)', () => {
    expect(query({ status: 'failed', limit: 0, hook: undefined, topic: null, cursor: '' })).toBe('?status=failed&limit=0');
    expect(query({})).toBe('');
    expect(query({ q: 'a b&c=d' })).toBe('?q=a+b%26c%3Dd');
  });

  it('reads the event a run was kept from as the first 24 characters of its id', () => {
    const event = '0123456789abcdef01234567';
    expect(eventIdOf({ id: `${event}-greet` })).toBe(event);
    expect(eventIdOf({ id: `${event}-other` })).toBe(eventIdOf({ id: `${event}-greet` }));
  });
});
