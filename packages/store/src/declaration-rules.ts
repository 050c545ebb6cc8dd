import { bindingsOverlap, conflict, declarationName, nearestName, notFound } from '@hookyard/core';
import type { Hook, StateDeclaration, StateDeclarationInput } from '@hookyard/core';

/** What a hook's subject binds: the declaration's name and the attach path (null: none, the whole document shared). */
export interface HookBinding {
  name: string;
  scope: string;
  kind: string;
  attach: string | null;
}

export function bindingOf(hook: Hook | null | undefined): HookBinding | null {
  const s = hook?.subject;
  if (!s) return null;
  return { name: declarationName(s.scope, s.kind), scope: s.scope, kind: s.kind, attach: s.attach ?? null };
}

/** How a binding is kept in Redis (`*`: no attach path; `-<pointer>` otherwise): bind_rules.lua reads the same. */
export const encodeAttach = (attach: string | null) => (attach === null ? '*' : `-${attach}`);
export const decodeAttach = (kept: string) => (kept === '*' ? null : kept.slice(1));

const shown = (attach: string | null) => (attach === null ? 'the whole document (a subject without attach)' : `attach path ${JSON.stringify(attach)}`);

export function undeclaredError(b: HookBinding, declared: Iterable<string>): Error {
  const near = nearestName(b.name, declared);
  return notFound(
    `subject ${b.name} is not a declared state${near ? `; did you mean '${near}'?` : ''} (declare it: PUT /api/states/declarations/${b.scope}/${b.kind}); no hook stored`,
  );
}

export function occupiedError(b: HookBinding, holder: string, held: string | null): Error {
  const where = b.attach === held ? 'the same part' : 'an overlapping part';
  return conflict(
    `subject ${b.name}: ${shown(b.attach)} overlaps hook '${holder}', which binds ${shown(held)} (${where} of the document); choose a path outside it or change that hook; no hook stored`,
  );
}

/** The first other hook whose binding overlaps `b`, or null. */
export function overlapping(b: HookBinding, self: string, held: Iterable<[string, string | null]>): [string, string | null] | null {
  for (const [hook, attach] of held) if (hook !== self && bindingsOverlap(b.attach, attach)) return [hook, attach];
  return null;
}

export function stillBoundError(name: string, hooks: string[]): Error {
  return conflict(
    `state ${name} is bound by hook${hooks.length === 1 ? '' : 's'} ${hooks.map((h) => `'${h}'`).join(', ')}; remove or rebind ${hooks.length === 1 ? 'it' : 'them'} first`,
  );
}

/** The declaration kept from `input`: the next version, created_at kept from `previous`. */
export function stampDeclaration(input: StateDeclarationInput, previous: StateDeclaration | null, now: number): StateDeclaration {
  const at = new Date(now).toISOString();
  return {
    scope: input.scope,
    kind: input.kind,
    schema: input.schema,
    description: input.description,
    templates: input.templates,
    version: (previous?.version ?? 0) + 1,
    created_at: previous?.created_at ?? at,
    updated_at: at,
  };
}
