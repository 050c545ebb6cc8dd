/** The door's `accepted` run events: built from what the door holds, sent on the next turn, bounded, best effort. */
import type { RunSummary } from '@hookyard/bus';
import { ACCEPTED_EVENTS_PER_TURN, createAcceptAnnouncer } from '../src/door/announce';

const turn = () => new Promise((r) => setImmediate(r));
const AT = Date.parse('2026-01-01T00:00:00Z');

describe('createAcceptAnnouncer', () => {
  it("sends nothing on the delivery's own turn, then one accepted summary per kept run", async () => {
    const sent: RunSummary[] = [];
    const announce = createAcceptAnnouncer({ publish: async (s) => void sent.push(s) });
    announce(
      'demo',
      [
        { id: 'r-0', hook: 'a' },
        { id: 'r-1', hook: 'b' },
      ],
      AT,
    );
    announce('other', [{ id: 'r-2', hook: 'c' }], AT + 5);
    expect(sent).toEqual([]);
    await turn();
    expect(sent.map((s) => [s.run_id, s.event, s.hook, s.topic, s.status, s.attempts, s.created_at, s.at])).toEqual([
      ['r-0', 'accepted', 'a', 'demo', 'pending', 0, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'],
      ['r-1', 'accepted', 'b', 'demo', 'pending', 0, '2026-01-01T00:00:00.000Z', '2026-01-01T00:00:00.000Z'],
      ['r-2', 'accepted', 'c', 'other', 'pending', 0, '2026-01-01T00:00:00.005Z', '2026-01-01T00:00:00.005Z'],
    ]);
  });

  it(`holds at most ${ACCEPTED_EVENTS_PER_TURN} per turn and drops the rest (said), then takes more on the next turn`, async () => {
    const sent: RunSummary[] = [];
    let dropped = 0;
    const announce = createAcceptAnnouncer({ publish: async (s) => void sent.push(s) }, (n) => (dropped += n));
    const kept = Array.from({ length: 1000 }, (_, i) => ({ id: `r-${i}`, hook: 'h' }));
    for (let i = 0; i < 6; i += 1) announce('t', kept, AT);
    await turn();
    expect(sent).toHaveLength(ACCEPTED_EVENTS_PER_TURN);
    expect(dropped).toBe(6000 - ACCEPTED_EVENTS_PER_TURN);
    announce('t', kept.slice(0, 3), AT);
    await turn();
    expect(sent).toHaveLength(ACCEPTED_EVENTS_PER_TURN + 3);
  });

  it('a sink that refuses loses the events, counted, and never throws into the door', async () => {
    let dropped = 0;
    const announce = createAcceptAnnouncer({ publish: async () => Promise.reject(new Error('NATS is not connected')) }, (n) => (dropped += n));
    expect(() =>
      announce(
        't',
        [
          { id: 'r-0', hook: 'h' },
          { id: 'r-1', hook: 'h' },
        ],
        AT,
      ),
    ).not.toThrow();
    await turn();
    await turn();
    expect(dropped).toBe(2);
  });
});
