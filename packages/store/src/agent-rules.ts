import { agentTokenId, conflict, legacyAgentId, newAgentId, type AgentClient } from '@hookyard/core';
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

/** The agent after `change` (each field given replaces the kept one) at `now`: both stores' update. */
export function changedAgent<T extends AgentClient>(kept: T, change: AgentChange, now: number): T {
  return {
    ...kept,
    ...(change.description !== undefined ? { description: change.description } : {}),
    ...(change.tools_allow !== undefined ? { tools_allow: [...change.tools_allow] } : {}),
    updated_at: new Date(now).toISOString(),
  };
}
