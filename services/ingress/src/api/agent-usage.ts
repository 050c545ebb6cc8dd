import type { AnswerOf, getAgent } from '@hookyard/api';
import { AGENT_HOOK_PREFIX, agentHookName, type AgentClient } from '@hookyard/core';
import { STATS_MINUTE_MS, type Stores } from '@hookyard/store';

/** What the list and GET of an agent answer as its `usage`. */
export type Usage = NonNullable<AnswerOf<typeof getAgent>['usage']>;

/** The window an agent's usage counts: the last 24 hours, whole minutes (the per-minute counters keep 25). */
export const AGENT_USAGE_MINUTES = 24 * 60;

/**
 * Each agent's usage: its counts of the last 24 hours from the per-minute run
 * counters, summed in the store (one small read for every agent: one script
 * per partition on Redis, read_hook_totals.lua),
 * and when its newest kept call was accepted (one run read per agent, newest
 * first by its hook's index). No run is scanned.
 */
export async function agentUsage(stores: Pick<Stores, 'runs'>, agents: readonly AgentClient[], now: number): Promise<Map<string, Usage>> {
  const to = Math.floor(now / STATS_MINUTE_MS);
  const from = to - AGENT_USAGE_MINUTES + 1;
  const byHook = await stores.runs.hookTotals(from, to, AGENT_HOOK_PREFIX);
  const since = new Date(from * STATS_MINUTE_MS).toISOString();
  const out = new Map<string, Usage>();
  await Promise.all(
    agents.map(async (a) => {
      const hook = agentHookName(a.name);
      const c = byHook.get(hook);
      const newest = (await stores.runs.list({ hook }, 1)).runs[0];
      out.set(a.name, {
        last_used_at: newest?.created_at ?? null,
        since,
        calls: c?.accepted ?? 0,
        denied: c?.denied ?? 0,
        approvals: c?.approvals ?? 0,
        failed: c?.failed ?? 0,
      });
    }),
  );
  return out;
}
