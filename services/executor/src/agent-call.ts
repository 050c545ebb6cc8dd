import { AGENT_REVOKED, agentAllowlist, agentOfHook, argsHash, badInput, isCallOf, isValidName, type Allowlist, type Hook, type Run } from '@hookyard/core';
import type { AgentStore } from '@hookyard/store';

/** An agent run's call as the executor plans it: a hook-shaped record for the shared steps, the arguments, the allowlist. */
export interface AgentCall {
  agent: string;
  /** Stands where a hook's record would: name `agent:<name>`, the call's tool, no expressions, no rules of its own. */
  hook: Hook;
  args: Record<string, unknown>;
  /** The deployment's allowlist ∩ the agent's ∩ the call's runtime list, read at each attempt (an agent's list may change). */
  allowlist(deployment: readonly string[]): Allowlist;
}

/** The agent a run's call came from (door `agent`), else null. */
export function agentOfRun(run: Pick<Run, 'door' | 'hook'>): string | null {
  return run.door === 'agent' ? agentOfHook(run.hook) : null;
}

/**
 * Reads an agent run's call from its payload and its agent's current record.
 * An agent revoked since the call was kept: `{revoked}` (the run is denied
 * with that sentence, its tool never called), also when an agent of the
 * same name was made since: the call belongs to the revoked agent's id, never
 * to its successor's. A payload that is not a call is `bad_input` (held: no
 * retry changes it).
 */
export async function agentCallOf(run: Run, agents: AgentStore): Promise<AgentCall | { revoked: string }> {
  const name = agentOfRun(run);
  if (!name) throw badInput(`run ${run.id} came through the agent door but its hook slot '${run.hook}' names no agent`);
  const p = run.payload as { tool?: unknown; arguments?: unknown; args_sha256?: unknown; tools_allow?: unknown } | null;
  const args = p?.arguments;
  if (!p || typeof p.tool !== 'string' || !isValidName(p.tool) || args === null || typeof args !== 'object' || Array.isArray(args)) {
    throw badInput(`run ${run.id}'s payload is not an agent call {tool, arguments}`);
  }
  // The door hashed the arguments it kept: arguments that no longer match were changed in the store since.
  if (typeof p.args_sha256 === 'string' && p.args_sha256 !== argsHash(args)) {
    throw badInput(`run ${run.id}'s arguments no longer match the SHA-256 kept with the call (${p.args_sha256.slice(0, 12)}…); the call is not made`);
  }
  const runtime = Array.isArray(p.tools_allow) ? p.tools_allow.filter((e): e is string => typeof e === 'string') : null;
  const agent = await agents.get(name);
  if (!agent || !isCallOf(agent, run)) {
    return { revoked: `${AGENT_REVOKED}: agent '${name}' was revoked before this call ran, so tool '${p.tool}' was not called` };
  }
  const at = run.created_at;
  return {
    agent: name,
    hook: { name: run.hook, topic: run.topic, tool: p.tool, tool_kwargs: {}, created_at: at, updated_at: at },
    args: args as Record<string, unknown>,
    allowlist: (deployment) => agentAllowlist(deployment, agent.tools_allow, runtime),
  };
}
