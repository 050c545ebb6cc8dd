import Ajv2020, { type ValidateFunction } from 'ajv/dist/2020';
import { badInput, forbidden } from './errors';
import { JQ_FIELDS, type JqField } from './types';

/**
 * Declared states: a (scope, kind) is declared, with a JSON Schema (draft
 * 2020-12) for its documents and named jq templates, before a hook binds it.
 * A binding names the part of the document the hook writes: its attach path.
 */

/** Names a declared template may have: the hook field a binding fills with it. */
export const STATE_TEMPLATE_NAMES = ['key_expr', ...JQ_FIELDS] as const;
export type StateTemplateName = (typeof STATE_TEMPLATE_NAMES)[number];

export interface StateDeclaration {
  scope: string;
  kind: string;
  /** JSON Schema (draft 2020-12) every document of this state must satisfy; `{}` is open. */
  schema: Record<string, unknown>;
  description: string;
  /** Named jq fields a binding attaches to its hook (`key_expr` fills subject.key_expr, the others the hook's own field). */
  templates: Partial<Record<StateTemplateName, JqField>>;
  /** 1 when declared, +1 per change. */
  version: number;
  created_at: string;
  updated_at: string;
}

/** What a hook's binding holds in a state: its attach path, or null for a subject without one (the whole document, shared). */
export interface StateBinding {
  hook: string;
  attach: string | null;
}

/** What a declaration is written from (the store stamps version and times). */
export type StateDeclarationInput = Omit<StateDeclaration, 'version' | 'created_at' | 'updated_at'>;

/**
 * The declarations and who binds them. They live beside the hooks, so a hook's
 * registration checks its binding in the step that keeps it (HookStore.putHook:
 * an undeclared state is `not_found`, an occupied attach path `conflict`).
 */
export interface StateDeclarationStore {
  /** Declares or replaces; the version goes up by one. */
  putDeclaration(input: StateDeclarationInput, now: number): Promise<{ created: boolean; declaration: StateDeclaration; previous: StateDeclaration | null }>;
  getDeclaration(scope: string, kind: string): Promise<StateDeclaration | null>;
  /** Every declaration, by scope then kind. */
  listDeclarations(): Promise<StateDeclaration[]>;
  /** Removes it and answers it (null: none); `conflict` naming the hooks while any binds it. */
  removeDeclaration(scope: string, kind: string): Promise<StateDeclaration | null>;
  /** The hooks that bind (scope, kind), by hook name. */
  bindings(scope: string, kind: string): Promise<StateBinding[]>;
  /** Whether the store's free-form subject state was brought up to declared states (the upgrade runs once). */
  upgraded(): Promise<boolean>;
  markUpgraded(): Promise<void>;
}

/** `scope/kind`, the name a declaration goes by. */
export const declarationName = (scope: string, kind: string) => `${scope}/${kind}`;

/** The open declaration a subject without `attach` gets when its state was never declared (the upgrade path). */
export function openDeclaration(scope: string, kind: string, why: string): StateDeclarationInput {
  return { scope, kind, schema: {}, description: why, templates: {} };
}

/** A JSON pointer (RFC 6901): "" or "/"-led segments, `~` only as ~0 or ~1. */
export function pointerViolation(field: string, value: unknown): string | undefined {
  if (typeof value !== 'string')
    return `${field} must be a JSON pointer string ("" for the whole document, "/checks" for one key), got ${JSON.stringify(value ?? null)}`;
  if (value !== '' && !value.startsWith('/')) return `${field} ${JSON.stringify(value)} must be "" or start with "/" (a JSON pointer)`;
  if (/~[^01]|~$/.test(value)) return `${field} ${JSON.stringify(value)} has a "~" that is not ~0 or ~1`;
  if (value.length > 512) return `${field} must be at most 512 characters`;
  return undefined;
}

export function pointerSegments(pointer: string): string[] {
  return pointer === ''
    ? []
    : pointer
        .slice(1)
        .split('/')
        .map((s) => s.replace(/~1/g, '/').replace(/~0/g, '~'));
}

/**
 * Whether two bindings of one state overlap: paths that are the same or one
 * inside the other; a binding without a path (the whole document, shared)
 * overlaps every path but not another like it.
 */
export function bindingsOverlap(a: string | null, b: string | null): boolean {
  if (a === null || b === null) return a !== b;
  return a === b || b.startsWith(`${a}/`) || a.startsWith(`${b}/`);
}

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === 'object' && v !== null && !Array.isArray(v);

function canonical(v: unknown): string {
  if (Array.isArray(v)) return `[${v.map(canonical).join(',')}]`;
  if (isObject(v))
    return `{${Object.keys(v)
      .sort()
      .map((k) => `${JSON.stringify(k)}:${canonical(v[k])}`)
      .join(',')}}`;
  return JSON.stringify(v) ?? 'null';
}

/** True when `before` and `after` differ only at or under `segments` (missing parents count as empty objects). */
function sameOutside(before: unknown, after: unknown, segments: string[]): boolean {
  if (segments.length === 0) return true;
  const b = before === undefined ? {} : before;
  const a = after === undefined ? {} : after;
  if (!isObject(b) || !isObject(a)) return canonical(before) === canonical(after);
  const [head, ...rest] = segments as [string, ...string[]];
  for (const k of new Set([...Object.keys(b), ...Object.keys(a)])) {
    if (k !== head && canonical(b[k]) !== canonical(a[k])) return false;
  }
  return sameOutside(b[head], a[head], rest);
}

/**
 * Refuses a hook's write that changes its state outside the hook's attach
 * path: `forbidden` naming the path (nothing is written).
 */
export function checkInsideAttach(label: string, hook: string, attach: string | null, before: unknown, after: unknown): void {
  if (attach === null || attach === '') return;
  if (!sameOutside(before, after, pointerSegments(attach))) {
    throw forbidden(`state ${label}: hook '${hook}' writes only at its attach path ${JSON.stringify(attach)}; this write changes the document outside it`);
  }
}

/**
 * Compiles a declaration's schema as draft 2020-12; one that does not compile
 * is `bad_input` quoting ajv. Validators are cached by the schema's text.
 */
export class StateSchemas {
  private readonly ajv = new Ajv2020({ allErrors: true, strict: false, logger: false });
  private readonly cache = new Map<string, ValidateFunction>();

  compile(schema: unknown): ValidateFunction {
    if (!isObject(schema) && typeof schema !== 'boolean') throw badInput(`schema must be a JSON Schema (an object), got ${JSON.stringify(schema ?? null)}`);
    const key = canonical(schema);
    let fn = this.cache.get(key);
    if (!fn) {
      try {
        fn = this.ajv.compile(schema as Record<string, unknown>);
      } catch (err) {
        throw badInput(`schema does not compile (JSON Schema draft 2020-12): ${(err as Error).message}`);
      }
      if (this.cache.size > 500) this.cache.clear();
      this.cache.set(key, fn);
    }
    return fn;
  }

  /** `bad_input` naming each failing JSON pointer with ajv's message; nothing is written. */
  check(label: string, schema: Record<string, unknown>, document: unknown): void {
    const validate = this.compile(schema);
    if (validate(document)) return;
    const lines = (validate.errors ?? []).map((e) => `${e.instancePath === '' ? '""' : e.instancePath} ${e.message ?? 'is invalid'}`);
    throw badInput(`state ${label}: the document does not match the declared schema: ${lines.join('; ')}`, lines);
  }
}
