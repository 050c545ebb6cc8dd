import { randomBytes } from 'node:crypto';
import { Cluster } from 'ioredis';
import { STATE_HISTORY_MAX } from '@hookyard/core';
import type { StateAttribution, StateOp, StatePage, StateRecord, StateStore, StateSummary, StateWrite, StateWriteInput, SubjectKey } from '@hookyard/core';
import type { RedisClient } from './client';
import type { KeyLayout } from './keys';
import { checkReply, storeError } from './replies';
import type { Scripts } from './scripts';
import { checkDocument, decodeCursor, encodeCursor, expectedVersion, mergeWithCas } from '../state-rules';

async function call<T>(op: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw storeError(op, err);
  }
}

/**
 * Subject state on Redis: a hash per subject, its history list and the kind's
 * key index, all under the kind's hash tag (keys.ts); a write is one script
 * (put_state, delete_state). A merge is a read and a compare-and-set write.
 * Each put carries a random write id, so a command the client re-sends after
 * a dropped connection finds its own write and answers it as stored instead
 * of writing it twice (or failing its own if_version).
 */
export class RedisStateStore implements StateStore {
  constructor(
    private readonly client: RedisClient,
    private readonly scripts: Scripts,
    private readonly keys: KeyLayout,
    private readonly maxBytes: number,
  ) {}

  async get(subject: SubjectKey): Promise<StateRecord | null> {
    const [doc, hist] = this.keys.stateScriptKeys(subject.scope, subject.kind, subject.key);
    const [h, lines] = await call('get_state', () => Promise.all([this.client.hgetall(doc!), this.client.lrange(hist!, 0, -1)]));
    if (!h.version) return null;
    return {
      scope: subject.scope,
      kind: subject.kind,
      key: subject.key,
      document: JSON.parse(h.document ?? '{}') as Record<string, unknown>,
      version: Number(h.version),
      created_at: h.created_at ?? '',
      updated_at: h.updated_at ?? '',
      history: lines.map((l) => JSON.parse(l) as StateWrite),
    };
  }

  async set(subject: SubjectKey, document: Record<string, unknown>, write: StateWriteInput, op: StateOp = 'set'): Promise<StateRecord> {
    const text = checkDocument(subject, document, this.maxBytes);
    const expected = expectedVersion(write);
    const at = new Date(write.now).toISOString();
    const keys = this.keys.stateScriptKeys(subject.scope, subject.kind, subject.key);
    const args = [
      this.keys.stateTag(subject.scope, subject.kind),
      subject.key,
      text,
      expected === null ? '' : String(expected),
      at,
      op,
      write.door,
      write.actor,
      write.hook ?? '',
      STATE_HISTORY_MAX,
      randomBytes(12).toString('base64url'),
    ];
    const reply = await call('put_state', () => this.scripts.run('put_state', keys, args));
    checkReply({ op: 'put_state', subject, ...(expected === null ? {} : { expected }) }, reply);
    const history = (reply[3] as string[]).map((l) => JSON.parse(l) as StateWrite);
    const version = Number(reply[1]);
    return {
      ...subject,
      document: JSON.parse(text) as Record<string, unknown>,
      version,
      created_at: String(reply[2]),
      updated_at: history.find((w) => w.version === version)?.at ?? at,
      history,
    };
  }

  merge(subject: SubjectKey, patch: Record<string, unknown>, write: StateWriteInput): Promise<StateRecord> {
    return mergeWithCas(this, subject, patch, write);
  }

  async remove(subject: SubjectKey, write: StateWriteInput): Promise<{ version: number } | null> {
    const expected = expectedVersion(write);
    const keys = this.keys.stateScriptKeys(subject.scope, subject.kind, subject.key);
    const args = [this.keys.stateTag(subject.scope, subject.kind), subject.key, expected === null ? '' : String(expected)];
    const reply = await call('delete_state', () => this.scripts.run('delete_state', keys, args));
    checkReply({ op: 'delete_state', subject, ...(expected === null ? {} : { expected }) }, reply);
    return Number(reply[0]) === 0 ? { version: Number(reply[1]) } : null;
  }

  async kinds(): Promise<Array<{ scope: string; kind: string }>> {
    const head = `{${this.keys.prefix}:st:`;
    const pattern = `${head.replace(/[*?[\]\\]/g, '\\$&')}*}:ix`;
    // A cluster's keys are spread over its masters: each is scanned.
    const nodes = this.client instanceof Cluster ? this.client.nodes('master') : [this.client];
    const found = new Set<string>();
    for (const node of nodes) {
      let cursor = '0';
      do {
        const [next, keys] = await call('state_kinds', () => node.scan(cursor, 'MATCH', pattern, 'COUNT', 500));
        cursor = next;
        for (const k of keys) found.add(k.slice(head.length, -'}:ix'.length));
      } while (cursor !== '0');
    }
    return [...found].map((sk) => ({ scope: sk.slice(0, sk.indexOf(':')), kind: sk.slice(sk.indexOf(':') + 1) }));
  }

  async list(scope: string, kind: string, limit: number, cursor?: string | null): Promise<StatePage> {
    const after = decodeCursor(cursor);
    const tag = this.keys.stateTag(scope, kind);
    const keys = await call('list_states', () => this.client.zrangebylex(`${tag}:ix`, after === null ? '-' : `(${after}`, '+', 'LIMIT', 0, limit + 1));
    const page = keys.slice(0, limit);
    const rows = await call('list_states', () => Promise.all(page.map((key) => this.client.hmget(`${tag}:doc:${key}`, 'version', 'updated_at', 'updated_by'))));
    const states: StateSummary[] = [];
    page.forEach((key, i) => {
      const [version, updatedAt, by] = rows[i]!;
      // Deleted between the index read and the hash read: left out.
      if (!version) return;
      states.push({ scope, kind, key, version: Number(version), updated_at: updatedAt ?? '', updated_by: JSON.parse(by ?? 'null') as StateAttribution });
    });
    return { states, nextCursor: keys.length > limit ? encodeCursor(page[page.length - 1]!) : null };
  }
}
