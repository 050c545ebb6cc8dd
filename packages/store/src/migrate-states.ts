import { declarationName, openDeclaration } from '@hookyard/core';
import type { Stores } from './types';

/** What the upgrade of free-form subject state found and did. */
export interface StateMigration {
  /** False when an earlier start already upgraded this store (nothing was looked at). */
  ran: boolean;
  /** Hooks whose subject had no recorded binding, now bound (the whole document, shared: they have no attach path). */
  bound: string[];
  /** States declared open: bound by those hooks, or holding documents no declaration covered. */
  declared: string[];
  /** Hooks that could not be bound (an attach path registered since holds part of their state), with the reason. */
  refused: Array<{ hook: string; message: string }>;
}

/**
 * Brings a store written before declared states up to them, once (recorded
 * in the store; a run that stopped part way is completed by the next): every hook with a subject and no
 * recorded binding has its state declared open when it was not declared and
 * is kept again, which records its binding as a subject without attach (the
 * whole document, shared with other such hooks); every (scope, kind) that
 * holds documents and is still undeclared is declared open. Hooks and writes
 * keep working as before (registration and writes refuse undeclared states
 * from then on); an operator tightens a state by declaring its schema.
 */
export async function migrateFreeFormStates(stores: Stores, now: number): Promise<StateMigration> {
  const out: StateMigration = { ran: false, bound: [], declared: [], refused: [] };
  // The scan of kept kinds walks the keyspace: once per store, not at every start.
  if (await stores.declarations.upgraded()) return out;
  out.ran = true;
  const before = new Set((await stores.declarations.listDeclarations()).map((d) => declarationName(d.scope, d.kind)));
  for (const hook of await stores.hooks.listHooks()) {
    const s = hook.subject;
    if (!s) continue;
    const bound = await stores.declarations.bindings(s.scope, s.kind);
    if (bound.some((b) => b.hook === hook.name)) continue;
    // Registration refuses an undeclared state, so the state a kept hook binds is declared open first.
    if (!(await stores.declarations.getDeclaration(s.scope, s.kind))) {
      await stores.declarations.putDeclaration(
        openDeclaration(s.scope, s.kind, `declared open at upgrade: hook '${hook.name}' bound it before states were declared`),
        now,
      );
    }
    try {
      await stores.hooks.putHook(hook);
      out.bound.push(hook.name);
    } catch (err) {
      out.refused.push({ hook: hook.name, message: (err as Error).message });
    }
  }
  for (const { scope, kind } of await stores.states.kinds()) {
    if (await stores.declarations.getDeclaration(scope, kind)) continue;
    await stores.declarations.putDeclaration(openDeclaration(scope, kind, 'declared open at upgrade: documents were kept before states were declared'), now);
  }
  const after = await stores.declarations.listDeclarations();
  out.declared = after.map((d) => declarationName(d.scope, d.kind)).filter((n) => !before.has(n));
  // Since this code runs, every hook binds a declared state at registration: the upgrade is not needed again.
  await stores.declarations.markUpgraded();
  return out;
}
