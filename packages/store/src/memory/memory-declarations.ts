import { declarationName } from '@hookyard/core';
import type { Hook, StateBinding, StateDeclaration, StateDeclarationInput, StateDeclarationStore } from '@hookyard/core';
import { bindingOf, stampDeclaration, occupiedError, overlapping, stillBoundError, undeclaredError } from '../declaration-rules';

/**
 * Declared states in this process, and which hook binds which part: the
 * memory hook store calls `bind` and `unbind` inside its own synchronous step,
 * so a refused binding stores no hook (as put_hook.lua in Redis).
 */
export class MemoryStateDeclarations implements StateDeclarationStore {
  private readonly decls = new Map<string, StateDeclaration>();
  /** Declaration name -> hook -> attach path (null: none). */
  private readonly binds = new Map<string, Map<string, string | null>>();

  /** Checks and records `hook`'s binding, dropping the one its previous record held; throws before changing anything. */
  bind(hook: Hook, previous: Hook | null): void {
    const b = bindingOf(hook);
    if (b) {
      if (!this.decls.has(b.name)) throw undeclaredError(b, this.decls.keys());
      const clash = overlapping(b, hook.name, this.binds.get(b.name) ?? []);
      if (clash) throw occupiedError(b, clash[0], clash[1]);
    }
    this.unbind(previous);
    if (b) {
      let m = this.binds.get(b.name);
      if (!m) this.binds.set(b.name, (m = new Map<string, string | null>()));
      m.set(hook.name, b.attach);
    }
  }

  unbind(hook: Hook | null): void {
    const b = bindingOf(hook);
    if (!b) return;
    const m = this.binds.get(b.name);
    m?.delete(hook!.name);
    if (m && m.size === 0) this.binds.delete(b.name);
  }

  private declare(input: StateDeclarationInput, now: number) {
    const name = declarationName(input.scope, input.kind);
    const previous = this.decls.get(name) ?? null;
    const declaration = stampDeclaration(structuredClone(input), previous, now);
    this.decls.set(name, declaration);
    return { created: previous === null, declaration: structuredClone(declaration), previous };
  }

  async putDeclaration(input: StateDeclarationInput, now: number) {
    return this.declare(input, now);
  }
  async getDeclaration(scope: string, kind: string): Promise<StateDeclaration | null> {
    const d = this.decls.get(declarationName(scope, kind));
    return d ? structuredClone(d) : null;
  }
  async listDeclarations(): Promise<StateDeclaration[]> {
    return [...this.decls.keys()].sort().map((k) => structuredClone(this.decls.get(k)!));
  }
  async removeDeclaration(scope: string, kind: string): Promise<StateDeclaration | null> {
    const name = declarationName(scope, kind);
    const bound = [...(this.binds.get(name)?.keys() ?? [])].sort();
    if (bound.length) throw stillBoundError(name, bound);
    const d = this.decls.get(name) ?? null;
    this.decls.delete(name);
    return d;
  }
  private upgradedFlag = false;
  async upgraded(): Promise<boolean> {
    return this.upgradedFlag;
  }
  async markUpgraded(): Promise<void> {
    this.upgradedFlag = true;
  }
  async bindings(scope: string, kind: string): Promise<StateBinding[]> {
    const m = this.binds.get(declarationName(scope, kind));
    return [...(m?.entries() ?? [])].map(([hook, attach]) => ({ hook, attach })).sort((a, b) => (a.hook < b.hook ? -1 : 1));
  }
}
