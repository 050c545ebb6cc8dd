import { agentTokenId, type AgentClient } from '@hookyard/core';
import { agentTaken, changedAgent, newAgentRecord, type NewAgent } from '../agent-rules';
import type { AgentChange, AgentStore } from '../types';

const iso = (ms: number) => new Date(ms).toISOString();

/** Agent principals held in this process (the embedded default; the Redis store's twin). */
export class MemoryAgentStore implements AgentStore {
  private readonly agents = new Map<string, { agent: AgentClient; tokenHash: string }>();
  private readonly byHash = new Map<string, string>();

  async create(input: NewAgent, now: number): Promise<AgentClient> {
    if (this.agents.has(input.name)) throw agentTaken(input.name);
    const agent = newAgentRecord(input, now);
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

  async remove(name: string): Promise<AgentClient | null> {
    const held = this.agents.get(name);
    if (!held) return null;
    this.agents.delete(name);
    this.byHash.delete(held.tokenHash);
    return structuredClone(held.agent);
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

  async update(name: string, change: AgentChange, now: number): Promise<AgentClient | null> {
    const held = this.agents.get(name);
    if (!held) return null;
    held.agent = changedAgent(held.agent, change, now);
    return structuredClone(held.agent);
  }

  async byTokenHash(tokenHash: string): Promise<AgentClient | null> {
    const name = this.byHash.get(tokenHash);
    return name === undefined ? null : this.get(name);
  }
}
