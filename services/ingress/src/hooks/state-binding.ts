import { HookyardError, bindingsOverlap, internal, nearestName, notFound, conflict, badInput, declarationName } from '@hookyard/core';
import type { Hook, StateDeclaration, StateDeclarationStore } from '@hookyard/core';

const shown = (attach: string | null) => (attach === null ? 'the whole document (a subject without attach)' : `attach path ${JSON.stringify(attach)}`);

/** A states-store read that failed while a binding was checked: 500, and the hook is not stored. */
async function read<T>(hook: string, state: string, fn: () => Promise<T>): Promise<T> {
  try {
    return await fn();
  } catch (err) {
    const e = err instanceof HookyardError ? err.message : String((err as Error)?.message ?? err);
    throw internal(`the states store failed while checking hook '${hook}''s binding of ${state}: ${e}; no hook stored, try again`, err);
  }
}

/**
 * Checks a hook's binding before it is kept, with messages that name what is
 * wrong: an undeclared state is 404 (with the nearest declared name), an
 * overlapping attach path 409 naming the hook that holds it, a states-store
 * failure 500. The store's putHook checks the same again in the step that
 * keeps the hook (a binding made in between is still refused). Attaches the
 * templates the binding names (their jq fills the hook's fields) and answers
 * the declaration (null: the hook has no subject). A subject without attach
 * binds too: the whole document of a declared state, shared.
 */
export async function checkBinding(hook: Hook, store: StateDeclarationStore): Promise<StateDeclaration | null> {
  const s = hook.subject;
  if (!s) return null;
  const name = declarationName(s.scope, s.kind);
  const attach = s.attach ?? null;
  const declaration = await read(hook.name, name, () => store.getDeclaration(s.scope, s.kind));
  if (!declaration) {
    const declared = await read(hook.name, name, () => store.listDeclarations());
    const near = nearestName(
      name,
      declared.map((d) => declarationName(d.scope, d.kind)),
    );
    throw notFound(
      `subject ${name} is not a declared state${near ? `; did you mean '${near}'?` : ''} (declare it: PUT /api/states/declarations/${s.scope}/${s.kind}); no hook stored`,
    );
  }
  const held = await read(hook.name, name, () => store.bindings(s.scope, s.kind));
  const clash = held.find((b) => b.hook !== hook.name && bindingsOverlap(attach, b.attach));
  if (clash) {
    throw conflict(
      `subject ${name}: ${shown(attach)} overlaps hook '${clash.hook}', which binds ${shown(clash.attach)}; choose a path outside it or change that hook; no hook stored`,
    );
  }
  attachTemplates(hook, declaration);
  return declaration;
}

/**
 * Copies the declared templates the binding names onto the hook (`key_expr`
 * into the subject, the others into the hook's own field) and stamps the
 * declaration's version. A field the hook sets itself to something else than
 * the template it names is refused, unless the hook carries the declaration's
 * version (a GET-edit-POST round trip of a record whose templates were attached).
 */
export function attachTemplates(hook: Hook, declaration: StateDeclaration): void {
  const s = hook.subject!;
  const names = s.templates ?? [];
  const lines: string[] = [];
  const carried = s.declaration_version !== undefined;
  for (const n of names) {
    const t = declaration.templates[n as keyof StateDeclaration['templates']];
    if (!t) {
      lines.push(
        `subject.templates names '${n}', which state ${declarationName(s.scope, s.kind)} does not declare (it declares: ${Object.keys(declaration.templates).join(', ') || 'none'})`,
      );
      continue;
    }
    const into = (n === 'key_expr' ? s : hook) as unknown as Record<string, unknown>;
    const at = n === 'key_expr' ? 'subject.key_expr' : n;
    // The same value (a GET-edit-POST round trip) or one a re-attach put there is not a clash.
    if (into[n] !== undefined && !carried && JSON.stringify(into[n]) !== JSON.stringify(t)) {
      lines.push(`${at} is given and differs from the declared template subject.templates names; keep one`);
    }
    into[n] = structuredClone(t);
  }
  if (lines.length) throw badInput('hook registration refused', lines);
  if (names.length) s.declaration_version = declaration.version;
  else delete s.declaration_version;
}
