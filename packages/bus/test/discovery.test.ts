import { randomBytes } from 'node:crypto';
import { requireNats, uniquePrefix } from '../../../test/support/services';
import {
  createDiscoveryHub,
  createDiscoveryRequester,
  createDiscoveryResponder,
  discoverySubject,
  DiscoveryUnansweredError,
  type DiscoveryHandler,
  type DiscoveryRequester,
  type DiscoveryResponder,
} from '../src';

/**
 * Discovery requests, one suite over both implementations: a request reaches
 * one executor and its answer comes back; with no executor, or one too slow,
 * the requester's error is DiscoveryUnansweredError (`unavailable`, naming
 * the wait) instead of a hang.
 */
interface Pair {
  requester: DiscoveryRequester;
  serve(handler: DiscoveryHandler): Promise<DiscoveryResponder>;
  close(): Promise<void>;
}

function conformance(name: string, make: () => Promise<Pair>): void {
  describe(`discovery requests (${name})`, () => {
    let pair: Pair;
    beforeEach(async () => {
      pair = await make();
    });
    afterEach(() => pair.close());

    it('a request is answered by the executor, as JSON each way', async () => {
      const seen: unknown[] = [];
      const served = await pair.serve(async (request) => {
        seen.push(request);
        return { ok: true, tools: ['pets__get_pet'], echo: request };
      });
      try {
        const answer = await pair.requester.ask({ op: 'discover', name: 'pets' }, 5000);
        expect(answer).toEqual({ ok: true, tools: ['pets__get_pet'], echo: { op: 'discover', name: 'pets' } });
        expect(seen).toEqual([{ op: 'discover', name: 'pets' }]);
      } finally {
        await served.close();
      }
    });

    it('with several executors, each request is answered once', async () => {
      let answered = 0;
      const handler: DiscoveryHandler = async () => {
        answered++;
        return { ok: true };
      };
      const a = await pair.serve(handler);
      const b = await pair.serve(handler);
      try {
        for (let i = 0; i < 6; i++) expect(await pair.requester.ask({ op: 'catalogue' }, 5000)).toEqual({ ok: true });
        expect(answered).toBe(6);
      } finally {
        await a.close();
        await b.close();
      }
    });

    it("an answer past NATS's 1 MiB max_payload in JSON (a large catalogue) arrives whole", async () => {
      // GitHub's catalogue is 1.8 MB of JSON Schemas; this one is 2.5 MB.
      const tools = Array.from({ length: 6000 }, (_, i) => ({
        name: `github__op_${i}`,
        description: 'x'.repeat(300),
        parameters: { type: 'object', properties: { owner: { type: 'string' } } },
      }));
      const served = await pair.serve(async () => ({ ok: true, tools }));
      try {
        expect(JSON.stringify({ ok: true, tools }).length).toBeGreaterThan(2_000_000);
        expect(await pair.requester.ask({ op: 'catalogue' }, 10_000)).toEqual({ ok: true, tools });
      } finally {
        await served.close();
      }
    });

    it('no executor listening: DiscoveryUnansweredError, unavailable, saying so', async () => {
      const err = await pair.requester.ask({ op: 'catalogue' }, 2000).then(
        () => undefined,
        (e: unknown) => e,
      );
      expect(err).toBeInstanceOf(DiscoveryUnansweredError);
      expect(err).toMatchObject({ kind: 'unavailable', message: expect.stringContaining('no executor answered the discovery request within 2000 ms') });
    });

    it('an executor that does not answer within the wait: DiscoveryUnansweredError naming the time', async () => {
      let release: () => void = () => undefined;
      const held = new Promise<void>((resolve) => (release = resolve));
      const served = await pair.serve(async () => {
        await held;
        return { ok: true };
      });
      try {
        const err = await pair.requester.ask({ op: 'catalogue' }, 300).then(
          () => undefined,
          (e: unknown) => e,
        );
        expect(err).toBeInstanceOf(DiscoveryUnansweredError);
        expect(err).toMatchObject({ kind: 'unavailable', message: expect.stringContaining('within 300 ms (timed out)') });
      } finally {
        release();
        await served.close();
      }
    });
  });
}

conformance('in memory', async () => {
  const hub = createDiscoveryHub();
  return { requester: hub, serve: async (h) => hub.serve(h), close: () => hub.close() };
});

conformance('NATS', async () => {
  const url = await requireNats();
  const prefix = uniquePrefix('disc');
  const requester = await createDiscoveryRequester({ url, prefix });
  const responders: DiscoveryResponder[] = [];
  return {
    requester,
    async serve(h) {
      const r = await createDiscoveryResponder({ url, prefix }, h);
      responders.push(r);
      return r;
    },
    async close() {
      for (const r of responders) await r.close();
      await requester.close();
    },
  };
});

describe('discovery over NATS: an answer too large even gzipped', () => {
  it("is answered at once with an error naming the server's max_payload, not a timeout", async () => {
    const url = await requireNats();
    const prefix = uniquePrefix('disc');
    const requester = await createDiscoveryRequester({ url, prefix });
    // Random bytes do not compress: 1.5 MB of them in base64.
    const blob = randomBytes(1_500_000).toString('base64');
    const responder = await createDiscoveryResponder({ url, prefix }, async () => ({ ok: true, tools: [blob] }));
    try {
      const answer = await requester.ask({ op: 'catalogue' }, 20_000);
      expect(answer).toEqual({
        ok: false,
        error: {
          kind: 'unavailable',
          message: expect.stringMatching(/^the discovery answer is \d+ bytes gzipped, over the NATS server's max_payload of \d+ bytes/),
        },
      });
    } finally {
      await responder.close();
      await requester.close();
    }
  });
});

describe('discovery subject', () => {
  it('is <prefix>.discovery.request, and a bad prefix is refused', () => {
    expect(discoverySubject('hooks')).toBe('hooks.discovery.request');
    expect(() => discoverySubject('a.*')).toThrow(/does not match/);
  });
});
