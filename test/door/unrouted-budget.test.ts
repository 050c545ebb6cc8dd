import { randomBytes } from 'node:crypto';
import { requireBuiltCli, startRole, type RoleProcess } from '../support/processes';
import { Api, pool } from '../e2e/api';

/**
 * An anonymous sender spraying large events on topics with no hook, against
 * a served embedded ingress (memory store): what the store keeps stays within
 * HOOKS_UNROUTED_MAX_BYTES, whatever is sent. The kept bytes are read from
 * the store (its usage and its events, through the API), not from the RSS.
 */
const BUDGET = 4 * 1024 * 1024;
const CUT = 256 * 1024;
const BODY = 512 * 1024;
const SENDS = 80; // 80 × 512 KiB = 40 MiB sent

interface Kept {
  id: string;
  payload: unknown;
  payload_truncated: boolean;
}

describe('unrouted events within a byte budget, live', () => {
  const token = randomBytes(16).toString('hex');
  let proc: RoleProcess;
  let api: Api;
  beforeAll(async () => {
    requireBuiltCli();
    proc = startRole('embedded', 'all', {
      HOOKS_API_TOKENS: `admin:${token}`,
      HOOKS_UNROUTED_MAX_BYTES: String(BUDGET),
      HOOKS_UNROUTED_EVENT_MAX_BYTES: String(CUT),
      // The limiter is not under test here: let one client send it all.
      HOOKS_DOOR_RATE: '0',
    });
    api = new Api(await proc.waitListening(), token);
  }, 30_000);
  afterAll(async () => {
    await proc?.stop('SIGKILL');
  });

  it('40 MiB of large events on topics with no hook keep at most HOOKS_UNROUTED_MAX_BYTES, each cut and marked payload_truncated; the drop is counted and logged', async () => {
    await pool(SENDS, 4, async (i) => {
      const payload = { i, pad: 'x'.repeat(BODY - 32) };
      expect(await api.sendEvent(`spray-${i % 4}`, payload)).toMatchObject({ status: 200, body: { runs: 0, unrouted: true } });
    });

    const listed = await api.ok<{ topics: Array<{ topic: string }>; usage: { events: number; bytes: number; dropped: number } }>('GET', '/api/unrouted');
    const kept: Kept[] = [];
    for (const { topic } of listed.topics) {
      let cursor: string | null = null;
      do {
        const page: { events: Kept[]; next_cursor: string | null } = await api.ok(
          'GET',
          `/api/unrouted/${topic}?limit=500${cursor ? `&cursor=${cursor}` : ''}`,
        );
        kept.push(...page.events);
        cursor = page.next_cursor;
      } while (cursor);
    }
    const keptBytes = kept.reduce((n, e) => n + Buffer.byteLength(JSON.stringify(e)), 0);
    expect(keptBytes).toBeLessThanOrEqual(BUDGET);
    expect(kept.every((e) => e.payload_truncated && Buffer.byteLength(JSON.stringify(e)) <= CUT)).toBe(true);
    expect(listed.usage).toEqual({ events: kept.length, bytes: keptBytes, dropped: SENDS - kept.length });
    // The budget is used, not left empty: whole cut events fill it but for less than one.
    expect(keptBytes).toBeGreaterThan(BUDGET - CUT);
    const warned = proc
      .logs()
      .filter((r) => typeof r.msg === 'string' && r.msg.startsWith('unrouted events: the oldest were dropped to stay within HOOKS_UNROUTED_MAX_BYTES'));
    expect(warned.length).toBeGreaterThanOrEqual(1);
    expect(warned[0]).toMatchObject({ level: 40, maxBytes: BUDGET });
  }, 120_000);
});
