import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { MemoryStats, STATS_BUCKETS, STATS_MAX_HOOKS, STATS_TTL_MS, statsBucket, windowMinutes } from '../src/stats-rules';

describe('per-minute counters: bounds', () => {
  it('stats.lua keeps the bounds and buckets of stats-rules.ts', () => {
    const lua = readFileSync(join(__dirname, '..', 'src', 'redis', 'lua', 'stats.lua'), 'utf8');
    expect(lua).toContain(`local STATS_TTL_S, STATS_MAX_HOOKS, STATS_BUCKETS = ${STATS_TTL_MS / 1000}, ${STATS_MAX_HOOKS}, ${STATS_BUCKETS}`);
    expect([0, 1, 2, 3, 1024, 1025, 2 ** 24, 2 ** 24 + 1, 1e12].map(statsBucket)).toEqual([0, 0, 1, 2, 10, 11, 24, 25, 25]);
  });

  it('counts at most STATS_MAX_HOOKS hooks one by one in a minute; the totals count every hook', () => {
    const stats = new MemoryStats();
    for (let i = 0; i <= STATS_MAX_HOOKS; i += 1) stats.add(60_000, `h${i}`, 'a');
    stats.add(60_001, 'h0', 'a');
    const [m] = stats.read(1, 1);
    expect(m!.total.accepted).toBe(STATS_MAX_HOOKS + 2);
    expect(Object.keys(m!.hooks)).toHaveLength(STATS_MAX_HOOKS);
    expect(m!.hooks.h0!.accepted).toBe(2);
    expect(m!.hooks[`h${STATS_MAX_HOOKS}`]).toBeUndefined();
  });

  it('keeps minutes for STATS_TTL_MS behind the newest, dropping older ones', () => {
    const stats = new MemoryStats();
    const keep = STATS_TTL_MS / 60_000;
    stats.add(0, 'h', 'a');
    stats.add((keep + 1) * 60_000, 'h', 'a');
    stats.add(0, 'h', 'a'); // too old to count now
    expect(stats.read(0, keep + 1).map((m) => m.minute)).toEqual([keep + 1]);
  });

  it('windows end with the step holding now: 60 minutes, or 96 steps of 15', () => {
    const now = Date.parse('2026-01-01T10:37:30Z');
    const m = Math.floor(now / 60_000);
    expect(windowMinutes('1h', now)).toEqual({ from: m - 59, to: m });
    const day = windowMinutes('24h', now);
    expect(day.to - day.from + 1).toBe(1440);
    expect(new Date(day.to * 60_000 + 60_000).toISOString()).toBe('2026-01-01T10:45:00.000Z');
  });
});
