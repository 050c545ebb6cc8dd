import { memoryOnlyCounts, type Stores } from '@hookyard/store';

/** One kind of thing the in-memory store holds, with how many. */
export interface Held {
  count: number;
  /** Singular and plural, e.g. ['hook', 'hooks']. */
  noun: readonly [string, string];
}

/**
 * What the embedded default keeps only in memory, in the order the banner
 * names it: each kind countHeld counts, and the Overview's charts (minute
 * counters, not items: named here, not counted at the stop). Not named: what
 * goes with a kind named here (an agent call's idempotency key with its run,
 * a tool's discovery status with the tool) and the flood limiter's buckets,
 * which refill on their own.
 */
export const IN_MEMORY =
  'hooks, tools, verifier bindings, dedupe keys, the approval policy, templates, declared states, agents, trigger links, ' +
  'runs (held failed ones too), approvals and waits (open and answered), subject state, unrouted events, the audit trail, ' +
  'the delivery ids the duplicate check has seen, the Overview charts';

/** What countHeld needs besides the stores: the time, and the retentions past which an unrouted event or audit entry counts as gone (as the API reads them). */
export interface HeldBounds {
  now: number;
  unroutedRetentionMs: number;
  auditRetentionMs: number;
}

const PAGE = 500;

/** Every item of a paged listing (the in-memory store answers at once). */
async function countPages(page: (cursor: string | null) => Promise<{ items: number; next: string | null }>): Promise<number> {
  let n = 0;
  let cursor: string | null = null;
  do {
    const p = await page(cursor);
    n += p.items;
    cursor = p.next;
  } while (cursor);
  return n;
}

/**
 * What a store holds, counted kind by kind (only the kinds with some): what a
 * stop of the embedded default drops. Runs are split into failed (held for an
 * operator), the ones still under way (pending, running, retrying, parked)
 * and the finished rest; approvals and waits into open and answered (every
 * status past open).
 */
export async function countHeld(stores: Stores, bounds: HeldBounds): Promise<Held[]> {
  const [hooks, tools, verifiers, templates, policy, declarations, agents, unrouted, counts] = await Promise.all([
    stores.hooks.listHooks(),
    stores.tools.listTools(),
    stores.hooks.listVerifiers(),
    stores.hooks.listTemplates(),
    stores.hooks.getApprovalPolicy(),
    stores.declarations.listDeclarations(),
    stores.agents.list(),
    stores.runs.listUnroutedTopics(bounds.now - bounds.unroutedRetentionMs),
    stores.runs.counts(),
  ]);
  // Removing a hook removes its links, so the hooks' links are all of them.
  const links = (await Promise.all(hooks.map((h) => stores.hooks.listTriggerLinks(h.name)))).reduce((n, l) => n + l.length, 0);
  const allRuns = await countPages(async (cursor) => {
    const p = await stores.runs.list({}, PAGE, cursor);
    return { items: p.runs.length, next: p.nextCursor };
  });
  const auditEntries = await countPages(async (cursor) => {
    const p = await stores.audit.list({}, PAGE, bounds.now - bounds.auditRetentionMs, cursor);
    return { items: p.entries.length, next: p.next_cursor };
  });
  const interactions = { open: { approval: 0, wait: 0 }, answered: { approval: 0, wait: 0 } };
  let cursor: string | null = null;
  do {
    const p = await stores.interactions.list({}, PAGE, cursor);
    for (const i of p.interactions) interactions[i.status === 'open' ? 'open' : 'answered'][i.kind] += 1;
    cursor = p.nextCursor;
  } while (cursor);
  const underWay = counts.pending + counts.running + counts.retry_wait + counts.parked;
  const only = memoryOnlyCounts(stores, bounds.now);
  const held: Held[] = [
    { count: hooks.length, noun: ['hook', 'hooks'] },
    { count: tools.length, noun: ['tool', 'tools'] },
    { count: verifiers.length, noun: ['verifier binding', 'verifier bindings'] },
    { count: only?.dedupeKeys ?? 0, noun: ['dedupe key', 'dedupe keys'] },
    { count: policy.rules.length, noun: ['approval rule', 'approval rules'] },
    { count: templates.length, noun: ['template', 'templates'] },
    { count: declarations.length, noun: ['declared state', 'declared states'] },
    { count: agents.length, noun: ['agent', 'agents'] },
    { count: links, noun: ['trigger link', 'trigger links'] },
    { count: counts.failed, noun: ['failed run', 'failed runs'] },
    { count: underWay, noun: ['run under way', 'runs under way'] },
    { count: Math.max(0, allRuns - counts.failed - underWay), noun: ['finished run', 'finished runs'] },
    { count: interactions.open.approval, noun: ['open approval', 'open approvals'] },
    { count: interactions.open.wait, noun: ['open wait', 'open waits'] },
    { count: interactions.answered.approval, noun: ['answered approval', 'answered approvals'] },
    { count: interactions.answered.wait, noun: ['answered wait', 'answered waits'] },
    { count: only?.subjectStates ?? 0, noun: ['subject state', 'subject states'] },
    { count: unrouted.reduce((n, t) => n + t.kept, 0), noun: ['unrouted event', 'unrouted events'] },
    { count: auditEntries, noun: ['audit entry', 'audit entries'] },
    { count: only?.deliveryIds ?? 0, noun: ['delivery id seen', 'delivery ids seen'] },
  ];
  return held.filter((h) => h.count > 0);
}

/** `8 hooks, 12 failed runs, 1 open approval` (empty when nothing is held). */
export function describeHeld(held: readonly Held[]): string {
  return held.map((h) => `${h.count} ${h.count === 1 ? h.noun[0] : h.noun[1]}`).join(', ');
}
