import type { Run } from './api';

/** An agent's run holds `agent:<name>` in its hook slot; a hook's name cannot hold a colon, so the prefix is unambiguous. */
const AGENT_HOOK_PREFIX = 'agent:';

/** An agent's tool call as its run carries it (the payload `{tool, arguments, tools_allow, idempotency_key, via}`). */
export interface AgentCallView {
  agent: string;
  /** Null on a row made from a live run event (a summary carries no payload). */
  tool: string | null;
  arguments: unknown;
  idempotency_key: string | null;
  /** How the call came in: mcp or http. */
  via: string | null;
  /** The caller's runtime allowlist (null: none given). */
  tools_allow: string[] | null;
}

/** The agent whose call a run is (the wire's `agent`, else read from the hook slot, as a live event's row has no `agent`), or null for a hook's run. */
export function agentOf(run: Pick<Run, 'hook' | 'agent' | 'door'>): string | null {
  if (run.agent) return run.agent;
  if (run.door !== undefined && run.door !== 'agent') return null;
  return run.hook.startsWith(AGENT_HOOK_PREFIX) ? run.hook.slice(AGENT_HOOK_PREFIX.length) : null;
}

/** The run's call when it is an agent's, read defensively (a payload is whatever was kept). */
export function agentCallOf(run: Run): AgentCallView | null {
  const agent = agentOf(run);
  if (!agent) return null;
  const p = (run.payload && typeof run.payload === 'object' ? run.payload : {}) as Record<string, unknown>;
  const text = (v: unknown) => (typeof v === 'string' ? v : null);
  return {
    agent,
    tool: text(p.tool),
    arguments: p.arguments,
    idempotency_key: text(p.idempotency_key),
    via: text(p.via),
    tools_allow: Array.isArray(p.tools_allow) ? p.tools_allow.filter((e): e is string => typeof e === 'string') : null,
  };
}

/** The words a runs row or a heading uses for an agent's call: "agent ci-bot → tool deploy". */
export function agentCallWords(call: Pick<AgentCallView, 'agent' | 'tool'>): string {
  return call.tool ? `agent ${call.agent} → tool ${call.tool}` : `agent ${call.agent}`;
}
