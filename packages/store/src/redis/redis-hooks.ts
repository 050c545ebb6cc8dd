import type { Hook, JqTemplate, RemoteToolRecord, VerifierBinding } from '@hookyard/core';
import type Redis from 'ioredis';
import type { HookStore, ToolStore } from '../types';
import type { KeyLayout } from './keys';
import { checkReply, storeError } from './replies';
import type { Scripts } from './scripts';

const parse = <T>(raw: string | null | undefined): T | null => (raw ? (JSON.parse(raw) as T) : null);
const byKey = <T>(key: (v: T) => string) => (a: T, b: T) => (key(a) < key(b) ? -1 : key(a) > key(b) ? 1 : 0);

/** Runs one Redis call, turning whatever it throws into a HookyardError. */
async function call<T>(op: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw storeError(op, err);
  }
}

/** Plain records in hashes; only putHook/removeHook need a script (they move the topic index). */
export class RedisHookStore implements HookStore {
  constructor(private readonly client: Redis, private readonly scripts: Scripts, private readonly keys: KeyLayout) {}

  async putHook(hook: Hook): Promise<{ created: boolean; previous: Hook | null }> {
    const reply = await call('put_hook', () =>
      this.scripts.run('put_hook', [this.keys.hooks], [this.keys.hookTag, hook.name, JSON.stringify(hook), hook.topic]),
    );
    const previous = parse<Hook>(String(checkReply({ op: 'put_hook' }, reply)[1] ?? ''));
    return { created: previous === null, previous };
  }
  async getHook(name: string): Promise<Hook | null> {
    return parse<Hook>(await call('getHook', () => this.client.hget(this.keys.hooks, name)));
  }
  async removeHook(name: string): Promise<boolean> {
    const reply = await call('remove_hook', () => this.scripts.run('remove_hook', [this.keys.hooks], [this.keys.hookTag, name]));
    return Number(checkReply({ op: 'remove_hook' }, reply)[1]) === 1;
  }
  async listHooks(): Promise<Hook[]> {
    return this.values<Hook>('listHooks', this.keys.hooks, (h) => h.name);
  }
  async hooksOnTopic(topic: string): Promise<Hook[]> {
    return call('hooksOnTopic', async () => {
      const names = await this.client.zrange(this.keys.topic(topic), 0, -1);
      if (names.length === 0) return [];
      const raws = await this.client.hmget(this.keys.hooks, ...names);
      return raws.map((raw) => parse<Hook>(raw)).filter((h): h is Hook => h !== null);
    });
  }

  async putVerifier(binding: VerifierBinding): Promise<{ created: boolean }> {
    const added = await call('putVerifier', () => this.client.hset(this.keys.verifiers, binding.topic, JSON.stringify(binding)));
    return { created: added === 1 };
  }
  async getVerifier(topic: string): Promise<VerifierBinding | null> {
    return parse<VerifierBinding>(await call('getVerifier', () => this.client.hget(this.keys.verifiers, topic)));
  }
  async removeVerifier(topic: string): Promise<boolean> {
    return (await call('removeVerifier', () => this.client.hdel(this.keys.verifiers, topic))) === 1;
  }
  async listVerifiers(): Promise<VerifierBinding[]> {
    return this.values<VerifierBinding>('listVerifiers', this.keys.verifiers, (v) => v.topic);
  }

  async putTemplate(template: JqTemplate): Promise<void> {
    await call('putTemplate', () => this.client.hset(this.keys.templates, template.id, JSON.stringify(template)));
  }
  async getTemplate(id: string): Promise<JqTemplate | null> {
    return parse<JqTemplate>(await call('getTemplate', () => this.client.hget(this.keys.templates, id)));
  }
  async removeTemplate(id: string): Promise<boolean> {
    return (await call('removeTemplate', () => this.client.hdel(this.keys.templates, id))) === 1;
  }
  async listTemplates(): Promise<JqTemplate[]> {
    return this.values<JqTemplate>('listTemplates', this.keys.templates, (t) => t.id);
  }

  async claimDelivery(topic: string, deliveryId: string, ttlMs: number): Promise<boolean> {
    const ok = await call('claimDelivery', () => this.client.set(this.keys.delivery(topic, deliveryId), '1', 'PX', ttlMs, 'NX'));
    return ok === 'OK';
  }
  async releaseDelivery(topic: string, deliveryId: string): Promise<void> {
    await call('releaseDelivery', () => this.client.del(this.keys.delivery(topic, deliveryId)));
  }

  private async values<T>(op: string, key: string, name: (v: T) => string): Promise<T[]> {
    const raws = await call(op, () => this.client.hvals(key));
    return raws.map((raw) => JSON.parse(raw) as T).sort(byKey(name));
  }
}

export class RedisToolStore implements ToolStore {
  constructor(private readonly client: Redis, private readonly keys: KeyLayout) {}

  async putTool(record: RemoteToolRecord): Promise<{ created: boolean }> {
    const added = await call('putTool', () => this.client.hset(this.keys.tools, record.name, JSON.stringify(record)));
    return { created: added === 1 };
  }
  async getTool(name: string): Promise<RemoteToolRecord | null> {
    return parse<RemoteToolRecord>(await call('getTool', () => this.client.hget(this.keys.tools, name)));
  }
  async removeTool(name: string): Promise<boolean> {
    return (await call('removeTool', () => this.client.hdel(this.keys.tools, name))) === 1;
  }
  async listTools(): Promise<RemoteToolRecord[]> {
    const raws = await call('listTools', () => this.client.hvals(this.keys.tools));
    return raws.map((raw) => JSON.parse(raw) as RemoteToolRecord).sort(byKey((t) => t.name));
  }
}
