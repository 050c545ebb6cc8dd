import { setOwn } from '@hookyard/core';
import type { JsonSchema } from '../types';

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** The top-level argument names a schema declares. */
export function declaredNames(schema: JsonSchema): Set<string> {
  return new Set(isPlainObject(schema.properties) ? Object.keys(schema.properties) : []);
}

/**
 * The schema the model sees: the injected names removed from `properties`
 * and `required`, so a value the runtime supplies (a credential, a tenant)
 * never appears as a field the model could fill in.
 */
export function stripInjected(schema: JsonSchema, injected: readonly string[]): JsonSchema {
  if (injected.length === 0) return schema;
  const drop = new Set(injected);
  const out: JsonSchema = { ...schema };
  if (isPlainObject(schema.properties)) {
    out.properties = Object.fromEntries(Object.entries(schema.properties).filter(([k]) => !drop.has(k)));
  }
  if (Array.isArray(schema.required)) {
    const required = schema.required.filter((k) => !(typeof k === 'string' && drop.has(k)));
    if (required.length > 0) out.required = required;
    else delete out.required;
  }
  return out;
}

/**
 * The arguments a call sends: the model's, then the injected values the
 * tool's full schema declares (the runtime wins; a tool that does not declare
 * a name never receives its value).
 */
export function applyInjected(args: Record<string, unknown>, injected: Record<string, unknown> | undefined, declared: Set<string>): Record<string, unknown> {
  const out: Record<string, unknown> = { ...args };
  for (const [k, v] of Object.entries(injected ?? {})) if (declared.has(k)) setOwn(out, k, v);
  return out;
}
