import { declarationName } from '@hookyard/core';
import type { StateBinding, StateDeclaration, StateDeclarationInput, StateDeclarationStore } from '@hookyard/core';
import type { RedisClient } from './client';
import type { KeyLayout } from './keys';
import { REPLY_CODES, checkReply, replyText, storeError } from './replies';
import type { Scripts } from './scripts';
import { decodeAttach, stampDeclaration, stillBoundError } from '../declaration-rules';

async function call<T>(op: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    throw storeError(op, err);
  }
}

/** The field of {P}:meta set once free-form subject state was upgraded (migrate-states.ts). */
const UPGRADED_FIELD = 'states_declared';

const parse = (raw: string | null | undefined): StateDeclaration | null => (raw ? (JSON.parse(raw) as StateDeclaration) : null);

/**
 * Declared states in the hooks' slot ({P}:state-decls, {P}:state-binds, see
 * keys.ts): put_hook checks and records a hook's binding in the step that keeps
 * the hook, and remove_state_declaration refuses while a binding is recorded.
 */
export class RedisStateDeclarations implements StateDeclarationStore {
  constructor(
    private readonly client: RedisClient,
    private readonly scripts: Scripts,
    private readonly keys: KeyLayout,
  ) {}

  async putDeclaration(input: StateDeclarationInput, now: number) {
    const name = declarationName(input.scope, input.kind);
    const previous = await this.getDeclaration(input.scope, input.kind);
    const declaration = stampDeclaration(input, previous, now);
    const args = [this.keys.hookTag, name, JSON.stringify(declaration), String(previous?.version ?? 0)];
    const reply = await call('put_state_declaration', () => this.scripts.run('put_state_declaration', [this.keys.stateDeclarations], args));
    checkReply({ op: 'put_state_declaration', id: name }, reply);
    return { created: previous === null, declaration, previous };
  }

  async getDeclaration(scope: string, kind: string): Promise<StateDeclaration | null> {
    return parse(await call('getDeclaration', () => this.client.hget(this.keys.stateDeclarations, declarationName(scope, kind))));
  }

  async listDeclarations(): Promise<StateDeclaration[]> {
    const all = await call('listDeclarations', () => this.client.hgetall(this.keys.stateDeclarations));
    return Object.keys(all)
      .sort()
      .map((k) => parse(all[k])!);
  }

  async removeDeclaration(scope: string, kind: string): Promise<StateDeclaration | null> {
    const name = declarationName(scope, kind);
    const reply = await call('remove_state_declaration', () =>
      this.scripts.run('remove_state_declaration', [this.keys.stateDeclarations, this.keys.stateBindings], [this.keys.hookTag, name]),
    );
    if (Number(reply[0]) === REPLY_CODES.state_bound) throw stillBoundError(name, Object.keys(JSON.parse(replyText(reply[1])) as object).sort());
    return parse(replyText(checkReply({ op: 'remove_state_declaration' }, reply)[1]));
  }

  async upgraded(): Promise<boolean> {
    return (await call('upgraded', () => this.client.hget(this.keys.meta, UPGRADED_FIELD))) === '1';
  }
  async markUpgraded(): Promise<void> {
    await call('markUpgraded', () => this.client.hset(this.keys.meta, UPGRADED_FIELD, '1'));
  }

  async bindings(scope: string, kind: string): Promise<StateBinding[]> {
    const raw = await call('bindings', () => this.client.hget(this.keys.stateBindings, declarationName(scope, kind)));
    const held = raw ? (JSON.parse(raw) as Record<string, string>) : {};
    return Object.keys(held)
      .sort()
      .map((hook) => ({ hook, attach: decodeAttach(held[hook]!) }));
  }
}
