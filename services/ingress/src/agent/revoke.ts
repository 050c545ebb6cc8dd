import { AGENT_REVOKED, agentHookName, agentIdOfCall, legacyAgentId, toHookyardError, type AgentClient } from '@hookyard/core';
import type { Stores } from '@hookyard/store';
import { answerApproval, type AnswerDeps } from '../approvals/answer';

/** What ending a revoked agent's calls runs on: the answer's deps, and the runs (whose call each approval holds). */
export type RevokeDeps = AnswerDeps & { stores: Pick<Stores, 'interactions' | 'runs'> };

/** What a revoke did to the agent's open approvals: the ones it denied, and the ones it could not (each with why; `*` when none could be read). */
export interface RevokedCalls {
  denied: string[];
  left: Array<{ interaction: string; why: string }>;
}

/** Open approvals read per page while a revoke ends them. */
const PAGE = 200;

/**
 * Ends the open approvals of a revoked agent's calls as `denied` ("agent
 * revoked"), as an operator's deny does: each resolution is recorded on its
 * interaction and its run's history, and the woken run is published, so the
 * executor ends it `denied` without calling its tool. Calls of the agent by
 * its id, and calls kept before agents had ids under its name (no live agent
 * owns those once the name is revoked); a same-named agent made since keeps
 * its own. One that cannot be ended here (expired meanwhile, answered first,
 * store unreachable) is left to the executor, which denies any call whose
 * agent is gone or is another agent of that name, whatever the answer was.
 */
export async function endRevokedCalls(deps: RevokeDeps, agent: AgentClient, by: string): Promise<RevokedCalls> {
  const out: RevokedCalls = { denied: [], left: [] };
  const owners = new Set([agent.id, legacyAgentId(agent.name)]);
  const runs = deps.stores.runs;
  let cursor: string | null = null;
  do {
    let page;
    try {
      page = await deps.stores.interactions.list({ status: 'open', kind: 'approval', hook: agentHookName(agent.name) }, PAGE, cursor);
    } catch (err) {
      // The agent is revoked all the same: the answer says so, and what was not reached is the executor's to deny.
      out.left.push({ interaction: '*', why: `the open approvals could not be read: ${toHookyardError(err).message}` });
      break;
    }
    for (const i of page.interactions) {
      try {
        const run = await runs.get(i.run);
        const owner = run ? agentIdOfCall(run) : null;
        if (run && owner !== null && !owners.has(owner)) continue;
        await answerApproval(deps, i.id, 'deny', { by, via: 'api', reason: AGENT_REVOKED });
        out.denied.push(i.id);
      } catch (err) {
        out.left.push({ interaction: i.id, why: toHookyardError(err).message });
      }
    }
    cursor = page.nextCursor;
  } while (cursor);
  if (out.left.length)
    deps.logger.warn({ agent: agent.name, left: out.left }, 'approvals of a revoked agent left open; the executor denies their calls when they run');
  return out;
}
