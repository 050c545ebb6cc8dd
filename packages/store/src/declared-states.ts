import { StateSchemas, checkInsideAttach, declarationName, forbidden, nearestName, notFound, subjectLabel } from '@hookyard/core';
import type { StateDeclaration, StateDeclarationStore, StateOp, StatePage, StateRecord, StateStore, StateWriteInput, SubjectKey } from '@hookyard/core';
import { MERGE_TRIES, expectedVersion, mergeWithCas, versionConflict } from './state-rules';

/** A store's own set, which also takes the op its history line names (a merge's write is `merge`). */
interface KeptStates extends StateStore {
  set(subject: SubjectKey, document: Record<string, unknown>, write: StateWriteInput, op?: StateOp): Promise<StateRecord>;
}

/** A write to a state never declared: not_found naming the nearest declared name and how to declare it. */
async function undeclared(declarations: StateDeclarationStore, label: string, { scope, kind }: SubjectKey): Promise<Error> {
  const name = declarationName(scope, kind);
  const near = nearestName(
    name,
    (await declarations.listDeclarations()).map((d) => declarationName(d.scope, d.kind)),
  );
  return notFound(
    `state ${label}: ${name} is not a declared state${near ? ` (did you mean '${near}'?)` : ''}; nothing written. Declare it first: PUT /api/states/declarations/${scope}/${kind} or hookyard states declare ${scope} ${kind}`,
  );
}

/**
 * Subject state that obeys its declaration: every write to a declared state,
 * from a hook or the API, is validated against the declared schema (bad_input
 * with the JSON pointer and ajv's message; nothing written), and a hook's write
 * may change only what lies at or under its binding's attach path (forbidden
 * naming the path). A hook's write is checked against the version it replaces
 * (a compare-and-set, read again when another write came between). The
 * operator's API writes the whole document. A state never declared is not
 * written (not_found naming how to declare it), so a typo in a kind does not
 * start a second, empty state; it reads as one holding nothing, and a delete
 * there removes what is kept (nothing is created).
 */
export class DeclaredStateStore implements StateStore {
  constructor(
    private readonly inner: KeptStates,
    private readonly declarations: StateDeclarationStore,
    private readonly schemas: StateSchemas = new StateSchemas(),
  ) {}

  /** How many subjects hold a state, where the kept store can say (the embedded default's stop notice). */
  size(): number | undefined {
    return (this.inner as { size?: () => number }).size?.();
  }

  get(subject: SubjectKey): Promise<StateRecord | null> {
    return this.inner.get(subject);
  }

  list(scope: string, kind: string, limit: number, cursor?: string | null): Promise<StatePage> {
    return this.inner.list(scope, kind, limit, cursor);
  }

  kinds(): Promise<Array<{ scope: string; kind: string }>> {
    return this.inner.kinds();
  }

  async set(subject: SubjectKey, document: Record<string, unknown>, write: StateWriteInput, op: StateOp = 'set'): Promise<StateRecord> {
    const declaration = await this.declarations.getDeclaration(subject.scope, subject.kind);
    const label = subjectLabel(subject);
    if (!declaration) throw await undeclared(this.declarations, label, subject);
    const attach = await this.attachOf(declaration, write, label);
    this.schemas.check(label, declaration.schema, document);
    if (attach === null || attach === '') return this.inner.set(subject, document, write, op);
    const given = expectedVersion(write);
    for (let n = 1; ; n += 1) {
      const kept = await this.inner.get(subject);
      const version = kept?.version ?? 0;
      if (given !== null && given !== version) throw versionConflict(subject, version, given);
      checkInsideAttach(label, write.hook ?? '?', attach, kept?.document ?? {}, document);
      try {
        return await this.inner.set(subject, document, { ...write, ifVersion: version }, op);
      } catch (err) {
        if ((err as { kind?: string }).kind !== 'conflict' || given !== null || n >= MERGE_TRIES) throw err;
      }
    }
  }

  merge(subject: SubjectKey, patch: Record<string, unknown>, write: StateWriteInput): Promise<StateRecord> {
    return mergeWithCas(this, subject, patch, write);
  }

  async remove(subject: SubjectKey, write: StateWriteInput): Promise<{ version: number } | null> {
    const declaration = await this.declarations.getDeclaration(subject.scope, subject.kind);
    if (declaration) {
      const label = subjectLabel(subject);
      const attach = await this.attachOf(declaration, write, label);
      if (attach !== null && attach !== '') {
        throw forbidden(
          `state ${label}: a delete removes the whole document; hook '${write.hook ?? '?'}' writes only at its attach path ${JSON.stringify(attach)}`,
        );
      }
    }
    return this.inner.remove(subject, write);
  }

  /**
   * The part a write may change: null (the whole document) for the API. A
   * hook's binding for a hook; a hook or agent that binds no part of the state
   * writes the whole document as before declarations while no binding holds
   * an attach path in it, and is forbidden once one does.
   */
  private async attachOf(declaration: StateDeclaration, write: StateWriteInput, label: string): Promise<string | null> {
    if (write.door !== 'hook') return null;
    const bound = await this.declarations.bindings(declaration.scope, declaration.kind);
    const mine = bound.find((b) => b.hook === write.hook);
    if (mine) return mine.attach;
    const held = bound.find((b) => b.attach !== null);
    if (held) {
      throw forbidden(
        `state ${label}: hook '${write.hook ?? '?'}' does not bind state ${declarationName(declaration.scope, declaration.kind)}, and hook '${held.hook}' holds its attach path ${JSON.stringify(held.attach)}; bind the state (a subject with attach) to write it`,
      );
    }
    return null;
  }
}
