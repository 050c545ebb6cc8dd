import { createHash } from 'node:crypto';
import { agentTokenId, conflict, legacyAgentId, newAgentId, type Acted, type AgentClient, type RunStatus } from '@hookyard/core';
import type { AgentChange, AgentStore, KeepAgentCallInput } from './types';

/** What `AgentStore.create` takes. */
export type NewAgent = Parameters<AgentStore['create']>[0];

/** A new agent's record as both stores keep and show it (the token only as its id; the hash is the store's). */
export function newAgentRecord(input: NewAgent, now: number): AgentClient {
  const at = new Date(now).toISOString();
  return {
    id: newAgentId(),
    name: input.name,
    description: input.description,
    tools_allow: [...input.tools_allow],
    token_id: agentTokenId(input.tokenHash),
    created_at: at,
    updated_at: at,
    // Kept only when given, so an agent without IdP identities reads as it always did.
    ...(input.identities?.length ? { identities: input.identities.map((i) => ({ ...i })) } : {}),
  };
}

/** An agent record as kept, with its id: one kept before agents had ids gets its legacy id (its name) as it is read. */
export function withAgentId<T extends Omit<AgentClient, 'id'> & { id?: string }>(kept: T): T & { id: string } {
  return { ...kept, id: typeof kept.id === 'string' && kept.id !== '' ? kept.id : legacyAgentId(kept.name) };
}

/** The refusal of `create` for a name that is taken. */
export function agentTaken(name: string): Error {
  return conflict(`agent '${name}' already exists; rotate its token or revoke it first`);
}

/** Whose idempotency keys a keep looks in: the call's agent id, or the name for a call kept the old way (no id). */
export function agentKeyScope(input: Pick<KeepAgentCallInput, 'agent' | 'call'>): string {
  return input.call.agent_id ?? legacyAgentId(input.agent);
}

/**
 * The statuses of an agent's call that an identical call (same agent, tool
 * and argument hash) joins instead of keeping a new run: the call is not
 * finished, so its one approval and its one tool call answer both. The one
 * list: the memory store reads it, and the Redis store hands it to
 * keep_agent_call.lua.
 */
export const JOINABLE_STATUSES: readonly RunStatus[] = ['pending', 'running', 'retry_wait', 'parked'];

/**
 * What ended the attempt of a `failed` run whose tool started and never
 * answered (an interrupt: a lapsed lease or a shutdown hand-back). Its
 * outcome is unknown and it is held for an operator, so it is joined too:
 * a repeat must not call the tool a second time.
 */
export const UNKNOWN_OUTCOME_ENDS: readonly string[] = ['lapsed', 'released'];

/**
 * True when an identical call joins a run in this state (JOINABLE_STATUSES,
 * or failed with an unknown outcome). An operator's verdict on such a held
 * run (resolveUnknown) sets its `ended` to `resolved`, which closes the call:
 * an identical call after it is a new one.
 */
export function isJoinable(status: RunStatus, acted: Acted, ended: string): boolean {
  if (JOINABLE_STATUSES.includes(status)) return true;
  return status === 'failed' && acted === 'start' && UNKNOWN_OUTCOME_ENDS.includes(ended);
}

/** The identity of a call an identical one joins: SHA-256 (hex) of its tool and its arguments' hash (the agent scopes it apart). */
export function callIdentity(call: Pick<KeepAgentCallInput['call'], 'tool' | 'args_sha256'>): string {
  return createHash('sha256').update(`${call.tool}\n${call.args_sha256}`, 'utf8').digest('hex');
}

/** The agent after `change` (each field given replaces the kept one) at `now`: both stores' update. */
export function changedAgent<T extends AgentClient>(kept: T, change: AgentChange, now: number): T {
  return {
    ...kept,
    ...(change.description !== undefined ? { description: change.description } : {}),
    ...(change.tools_allow !== undefined ? { tools_allow: [...change.tools_allow] } : {}),
    updated_at: new Date(now).toISOString(),
  };
}
