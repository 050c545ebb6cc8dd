import { agentTokenId, unavailable, type AgentClient } from '@hookyard/core';
import { agentTaken, changedAgent, newAgentRecord, withAgentId, type NewAgent } from '../agent-rules';
import type { AgentChange, AgentStore } from '../types';
import type { RedisClient } from './client';
import type { KeyLayout } from './keys';
import { replyText, storeError } from './replies';
import type { Scripts } from './scripts';

/** An agent as kept: the API's record plus its token's SHA-256 (never the token). */
type Kept = AgentClient & { token_hash: string };

/** A kept record as read: one written before agents had ids is read with its legacy id (kept from its next rotate on). */
const parse = (raw: string): Kept => withAgentId(JSON.parse(raw) as Omit<Kept, 'id'> & { id?: string });

const iso = (ms: number) => new Date(ms).toISOString();
const shown = ({ token_hash: _hash, ...agent }: Kept): AgentClient => agent;

/** Agent principals in the hooks' slot: `{P}:agents` (name -> JSON) and `{P}:agent-tokens` (token hash -> name). */
export class RedisAgentStore implements AgentStore {
  constructor(
    private readonly client: RedisClient,
    private readonly scripts: Scripts,
    private readonly keys: KeyLayout,
  ) {}

  private async kept(name: string): Promise<Kept | null> {
    let raw: string | null;
    try {
      raw = await this.client.hget(this.keys.agents, name);
    } catch (err) {
      throw storeError('getAgent', err);
    }
    return raw === null ? null : parse(raw);
  }

  async create(input: NewAgent, now: number): Promise<AgentClient> {
    const kept: Kept = { ...newAgentRecord(input, now), token_hash: input.tokenHash };
    const reply = await this.run('create_agent', [input.name, JSON.stringify(kept), input.tokenHash]);
    if (reply === 1) throw agentTaken(input.name);
    return shown(kept);
  }

  async get(name: string): Promise<AgentClient | null> {
    const kept = await this.kept(name);
    return kept ? shown(kept) : null;
  }

  async list(): Promise<AgentClient[]> {
    let all: Record<string, string>;
    try {
      all = await this.client.hgetall(this.keys.agents);
    } catch (err) {
      throw storeError('listAgents', err);
    }
    return Object.keys(all)
      .sort()
      .map((name) => shown(parse(all[name]!)));
  }

  async remove(name: string): Promise<AgentClient | null> {
    const reply = await this.reply('remove_agent', [name]);
    return Number(reply[0]) === 1 ? shown(parse(replyText(reply[1]))) : null;
  }

  async rotate(name: string, tokenHash: string, now: number): Promise<AgentClient | null> {
    // Compare-and-set on the hash read: a concurrent rotate makes this one read again.
    for (let i = 0; i < 5; i++) {
      const kept = await this.kept(name);
      if (!kept) return null;
      const next: Kept = { ...kept, token_hash: tokenHash, token_id: agentTokenId(tokenHash), updated_at: iso(now) };
      const reply = await this.run('rotate_agent', [name, JSON.stringify(next), kept.token_hash, tokenHash]);
      if (reply === 0) return shown(next);
      if (reply === 1) return null;
    }
    throw unavailable(`agent '${name}' kept changing while its token was rotated; try again`);
  }

  async update(name: string, change: AgentChange, now: number): Promise<AgentClient | null> {
    // Compare-and-set on the JSON read: a concurrent rotate or update makes this one read again.
    for (let i = 0; i < 5; i++) {
      let raw: string | null;
      try {
        raw = await this.client.hget(this.keys.agents, name);
      } catch (err) {
        throw storeError('getAgent', err);
      }
      if (raw === null) return null;
      const next = changedAgent(parse(raw), change, now);
      let reply: unknown[];
      try {
        reply = await this.scripts.run('update_agent', [this.keys.agents], [name, raw, JSON.stringify(next)]);
      } catch (err) {
        throw storeError('update_agent', err);
      }
      if (Number(reply[0]) === 0) return shown(next);
      if (Number(reply[0]) === 1) return null;
    }
    throw unavailable(`agent '${name}' kept changing while it was updated; try again`);
  }

  async byTokenHash(tokenHash: string): Promise<AgentClient | null> {
    let name: string | null;
    try {
      name = await this.client.hget(this.keys.agentTokens, tokenHash);
    } catch (err) {
      throw storeError('agentByToken', err);
    }
    if (name === null) return null;
    const kept = await this.kept(name);
    // Rotated or removed between the two reads: the token no longer names it.
    return kept && kept.token_hash === tokenHash ? shown(kept) : null;
  }

  private async run(name: 'create_agent' | 'rotate_agent', args: string[]): Promise<number> {
    return Number((await this.reply(name, args))[0]);
  }

  private async reply(name: 'create_agent' | 'rotate_agent' | 'remove_agent', args: string[]): Promise<unknown[]> {
    try {
      return await this.scripts.run(name, [this.keys.agents, this.keys.agentTokens], args);
    } catch (err) {
      throw storeError(name, err);
    }
  }
}
