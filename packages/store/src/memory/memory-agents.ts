import { agentTokenId, conflict, type AgentClient } from '@hookyard/core';
import type { AgentStore } from '../types';

const iso = (ms: number) => new Date(ms).toISOString();

/** Agent principals held in this process (the embedded default; the Redis store's twin). */
export class MemoryAgentStore implements AgentStore {
  private readonly agents = new Map<string, { agent: AgentClient; tokenHash: string }>();
  private readonly byHash = new Map<string, string>();

  async create(input: { name: string; description: string | null; tools_allow: string[]; tokenHash: string }, now: number): Promise<AgentClient> {
    if (this.agents.has(input.name)) throw conflict(`agent '${input.name}' already exists; rotate its token or revoke it first`);
    const agent: AgentClient = {
      name: input.name,
      description: input.description,
      tools_allow: [...input.tools_allow],
      token_id: agentTokenId(input.tokenHash),
      created_at: iso(now),
      updated_at: iso(now),
    };
    this.agents.set(input.name, { agent, tokenHash: input.tokenHash });
    this.byHash.set(input.tokenHash, input.name);
    return structuredClone(agent);
  }

  async get(name: string): Promise<AgentClient | null> {
    const held = this.agents.get(name);
    return held ? structuredClone(held.agent) : null;
  }

  async list(): Promise<AgentClient[]> {
    return [...this.agents.values()].map((h) => structuredClone(h.agent)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  }

  async remove(name: string): Promise<boolean> {
    const held = this.agents.get(name);
    if (!held) return false;
    this.agents.delete(name);
    this.byHash.delete(held.tokenHash);
    return true;
  }

  async rotate(name: string, tokenHash: string, now: number): Promise<AgentClient | null> {
    const held = this.agents.get(name);
    if (!held) return null;
    this.byHash.delete(held.tokenHash);
    held.tokenHash = tokenHash;
    held.agent.token_id = agentTokenId(tokenHash);
    held.agent.updated_at = iso(now);
    this.byHash.set(tokenHash, name);
    return structuredClone(held.agent);
  }

  async byTokenHash(tokenHash: string): Promise<AgentClient | null> {
    const name = this.byHash.get(tokenHash);
    return name === undefined ? null : this.get(name);
  }
}
