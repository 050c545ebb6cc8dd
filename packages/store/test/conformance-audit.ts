import { newRunId } from '@hookyard/core';
import type { AuditEntry } from '../src';
import { AUDIT_ENTRY_MAX_BYTES } from '../src';
import { T0, useStores, type StoresFactory } from './fixtures';

const DAY = 86_400_000;
const BOUNDS = { retentionMs: 30 * DAY, maxEntries: 1000, maxRefused: 100 };

function entry(at: number, action: string, extra: Partial<AuditEntry> = {}): AuditEntry {
  return {
    id: newRunId(at),
    at: new Date(at).toISOString(),
    actor: { kind: 'token', role: 'operator', label: 'operator:1a2b3c4d' },
    action,
    target: 'h1',
    client: '10.0.0.7',
    status: 200,
    request: { method: 'POST', path: '/api/hooks' },
    ...extra,
  };
}

/**
 * The audit trail: entries kept as given, listed newest first in cursor
 * pages, filtered by action (exact or a `.*` family), actor (label, role or
 * kind), target and time; bounded by the retention and a count bound per
 * list (changes, refused attempts), which only that list fills.
 */
export function describeAuditConformance(name: string, factory: StoresFactory): void {
  describe(`${name} audit store`, () => {
    const stores = useStores(factory);

    it('keeps entries as given and pages them newest first with a cursor, without repeats or gaps', async () => {
      const { audit } = stores();
      const kept: AuditEntry[] = [];
      for (let i = 0; i < 7; i += 1) {
        const e = entry(T0 + i * 1000, i % 2 ? 'hook.remove' : 'hook.register', { before: i ? { n: i - 1 } : null, after: { n: i } });
        kept.push(e);
        await audit.record(e, BOUNDS);
      }
      const seen: AuditEntry[] = [];
      let cursor: string | null = null;
      let pages = 0;
      do {
        const page = await audit.list({}, 3, T0 - DAY, cursor);
        seen.push(...page.entries);
        cursor = page.next_cursor;
        pages += 1;
      } while (cursor !== null);
      expect(pages).toBe(3);
      expect(seen).toEqual([...kept].reverse());
    });

    it('filters by action (exact or a family), actor (label, role or kind), target and time', async () => {
      const { audit } = stores();
      const link = { kind: 'link' as const, role: null, label: 'link:abc' };
      await audit.record(entry(T0, 'hook.register', { target: 'a' }), BOUNDS);
      await audit.record(entry(T0 + 1000, 'hook.remove', { target: 'b' }), BOUNDS);
      await audit.record(entry(T0 + 2000, 'policy.update', { target: null, actor: { kind: 'token', role: 'admin', label: 'admin:99999999' } }), BOUNDS);
      await audit.record(entry(T0 + 3000, 'interaction.approve', { target: 'i1', actor: link }), BOUNDS);
      const actions = async (filter: Parameters<typeof audit.list>[0]) => (await audit.list(filter, 50, T0 - DAY)).entries.map((e) => e.action);
      expect(await actions({ action: 'hook.remove' })).toEqual(['hook.remove']);
      expect(await actions({ action: 'hook.*' })).toEqual(['hook.remove', 'hook.register']);
      expect(await actions({ actor: 'admin' })).toEqual(['policy.update']);
      expect(await actions({ actor: 'operator:1a2b3c4d' })).toEqual(['hook.remove', 'hook.register']);
      expect(await actions({ actor: 'link' })).toEqual(['interaction.approve']);
      expect(await actions({ target: 'a' })).toEqual(['hook.register']);
      expect(await actions({ since: T0 + 1000, until: T0 + 2000 })).toEqual(['policy.update', 'hook.remove']);
      expect(await actions({ until: T0 + 999 })).toEqual(['hook.register']);
      expect(await actions({ action: 'hook.*', since: T0 + 500 })).toEqual(['hook.remove']);
      // A filtered page still pages: one match per page, then the end.
      const first = await audit.list({ action: 'hook.*' }, 1, T0 - DAY);
      expect(first.entries.map((e) => e.target)).toEqual(['b']);
      const second = await audit.list({ action: 'hook.*' }, 1, T0 - DAY, first.next_cursor);
      expect(second).toEqual({ entries: [expect.objectContaining({ target: 'a' })], next_cursor: null });
    });

    it('stays bounded: entries past the retention are neither listed nor kept; past the cap the oldest go', async () => {
      const { audit } = stores();
      const bounds = { retentionMs: DAY, maxEntries: 3, maxRefused: 3 };
      await audit.record(entry(T0, 'hook.register', { target: 'old' }), bounds);
      await audit.record(entry(T0 + DAY + 1, 'hook.register', { target: 'a' }), bounds);
      // Listed with the retention applied at read time too.
      expect((await audit.list({}, 10, T0 + DAY + 1 - DAY)).entries.map((e) => e.target)).toEqual(['a']);
      // Kept past the cap only the newest three, whatever the listing's bound.
      for (const t of ['b', 'c', 'd']) await audit.record(entry(T0 + DAY + 2 + t.charCodeAt(0), 'hook.register', { target: t }), bounds);
      expect((await audit.list({}, 10, 0)).entries.map((e) => e.target)).toEqual(['d', 'c', 'b']);
    });

    it('refused attempts live apart: past their own bound the oldest refusal goes, never a change; the listing shows both, newest first', async () => {
      const { audit } = stores();
      const bounds = { retentionMs: DAY, maxEntries: 3, maxRefused: 2 };
      const reader = { kind: 'token' as const, role: 'reader' as const, label: 'reader:0a0b0c0d' };
      const refused = (at: number, target: string) => entry(at, 'policy.update', { target, status: 403, actor: reader });
      expect(await audit.record(entry(T0, 'policy.update', { target: 'change' }), bounds)).toEqual({ list: 'changes', dropped: 0 });
      const answers = [];
      for (let i = 1; i <= 5; i += 1) answers.push(await audit.record(refused(T0 + i, `r${i}`), bounds));
      expect(answers).toEqual([
        { list: 'refused', dropped: 0 },
        { list: 'refused', dropped: 0 },
        { list: 'refused', dropped: 1 },
        { list: 'refused', dropped: 1 },
        { list: 'refused', dropped: 1 },
      ]);
      const targets = async () => (await audit.list({}, 10, 0)).entries.map((e) => e.target);
      expect(await targets()).toEqual(['r5', 'r4', 'change']);
      // A 5xx (the outcome is not known) is kept with the changes; changes past their own bound drop only changes.
      await audit.record(entry(T0 + 10, 'hook.register', { target: 'c2', status: 503 }), bounds);
      await audit.record(entry(T0 + 11, 'hook.register', { target: 'c3' }), bounds);
      expect(await audit.record(entry(T0 + 12, 'hook.register', { target: 'c4' }), bounds)).toEqual({ list: 'changes', dropped: 1 });
      expect(await targets()).toEqual(['c4', 'c3', 'c2', 'r5', 'r4']);
      // Past the retention both lists empty out, and their bounds count only what is left.
      expect(await audit.record(refused(T0 + DAY + 20, 'late'), bounds)).toEqual({ list: 'refused', dropped: 0 });
      expect(await targets()).toEqual(['late']);
    });

    it('keeps an oversized entry with its before/after replaced by a note of their size', async () => {
      const { audit } = stores();
      const big = 'x'.repeat(AUDIT_ENTRY_MAX_BYTES);
      await audit.record(entry(T0, 'policy.update', { before: { rules: [] }, after: { big } }), BOUNDS);
      const [kept] = (await audit.list({}, 1, 0)).entries;
      expect(kept).toMatchObject({ action: 'policy.update', before: { truncated: true, bytes: 12 }, after: { truncated: true } });
      expect(JSON.stringify(kept).length).toBeLessThan(AUDIT_ENTRY_MAX_BYTES);
    });
  });
}
