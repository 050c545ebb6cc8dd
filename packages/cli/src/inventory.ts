import type { Stores } from '@hookyard/store';

/** One kind of thing the in-memory store holds, with how many. */
export interface Held {
  count: number;
  /** Singular and plural, e.g. ['hook', 'hooks']. */
  noun: readonly [string, string];
}

/** What the embedded default keeps only in memory, in the order the banner names it. */
export const IN_MEMORY =
  'hooks, tools, verifier bindings, dedupe keys, the approval policy, templates, runs (held failed ones too), open approvals and waits, subject state';

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
 * and the finished rest.
 */
export async function countHeld(stores: Stores): Promise<Held[]> {
  const [hooks, tools, verifiers, templates, policy, counts] = await Promise.all([
    stores.hooks.listHooks(),
    stores.tools.listTools(),
    stores.hooks.listVerifiers(),
    stores.hooks.listTemplates(),
    stores.hooks.getApprovalPolicy(),
    stores.runs.counts(),
  ]);
  const allRuns = await countPages(async (cursor) => {
    const p = await stores.runs.list({}, PAGE, cursor);
    return { items: p.runs.length, next: p.nextCursor };
  });
  const open = { approval: 0, wait: 0 } as Record<string, number>;
  let cursor: string | null = null;
  do {
    const p = await stores.interactions.list({ status: 'open' }, PAGE, cursor);
    for (const i of p.interactions) open[i.kind] = (open[i.kind] ?? 0) + 1;
    cursor = p.nextCursor;
  } while (cursor);
  const underWay = counts.pending + counts.running + counts.retry_wait + counts.parked;
  const states = (stores.states as { size?: () => number }).size?.() ?? 0;
  const held: Held[] = [
    { count: hooks.length, noun: ['hook', 'hooks'] },
    { count: tools.length, noun: ['tool', 'tools'] },
    { count: verifiers.length, noun: ['verifier binding', 'verifier bindings'] },
    { count: policy.rules.length, noun: ['approval rule', 'approval rules'] },
    { count: templates.length, noun: ['template', 'templates'] },
    { count: counts.failed, noun: ['failed run', 'failed runs'] },
    { count: underWay, noun: ['run under way', 'runs under way'] },
    { count: Math.max(0, allRuns - counts.failed - underWay), noun: ['finished run', 'finished runs'] },
    { count: open.approval ?? 0, noun: ['open approval', 'open approvals'] },
    { count: open.wait ?? 0, noun: ['open wait', 'open waits'] },
    { count: states, noun: ['subject state', 'subject states'] },
  ];
  return held.filter((h) => h.count > 0);
}

/** `8 hooks, 12 failed runs, 1 open approval` (empty when nothing is held). */
export function describeHeld(held: readonly Held[]): string {
  return held.map((h) => `${h.count} ${h.count === 1 ? h.noun[0] : h.noun[1]}`).join(', ');
}
