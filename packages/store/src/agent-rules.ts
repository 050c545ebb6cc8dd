import { agentTokenId, conflict, type AgentClient } from '@hookyard/core';
import type { AgentStore } from './types';

/** What `AgentStore.create` takes. */
export type NewAgent = Parameters<AgentStore['create']>[0];

/** A new agent's record as both stores keep and show it (the token only as its id; the hash is the store's). */
export function newAgentRecord(input: NewAgent, now: number): AgentClient {
  const at = new Date(now).toISOString();
  return {
    name: input.name,
    description: input.description,
    tools_allow: [...input.tools_allow],
    token_id: agentTokenId(input.tokenHash),
    created_at: at,
    updated_at: at,
  };
}

/** The refusal of `create` for a name that is taken. */
export function agentTaken(name: string): Error {
  return conflict(`agent '${name}' already exists; rotate its token or revoke it first`);
}
