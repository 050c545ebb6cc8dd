import { api, ApiError } from './api';

/** A JSON Schema node, as loosely as the form needs it. */
export interface Schema {
  type?: string;
  description?: string;
  pattern?: string;
  enum?: unknown[];
  required?: string[];
  properties?: Record<string, Schema>;
  items?: Schema;
  allOf?: Schema[];
  oneOf?: Schema[];
  $ref?: string;
  $defs?: Record<string, Schema>;
  'x-tai42-expression'?: unknown;
  [k: string]: unknown;
}

export interface HookSchema {
  root: Schema;
  /** Resolves a `$ref` (to `$defs` or to OpenAPI components) to its schema. */
  resolve(s: Schema): Schema;
}

/**
 * The hook registration schema: `GET /api/hooks/schema` where the server has
 * it, else the `HookInput` component of `/openapi.json` (older servers), whose
 * jq fields are the `JqField` references.
 */
export async function loadHookSchema(): Promise<HookSchema> {
  try {
    const root = await api<Schema>('GET', '/api/hooks/schema');
    const defs = root.$defs ?? {};
    return { root, resolve: (s) => resolveWith(s, (ref) => defs[ref.replace('#/$defs/', '')]) };
  } catch (err) {
    if (!(err instanceof ApiError) || err.status !== 404) throw err;
  }
  const doc = await api<{ components: { schemas: Record<string, Schema> } }>('GET', '/openapi.json');
  const schemas = doc.components.schemas;
  const pick = (ref: string) => schemas[ref.replace('#/components/schemas/', '')];
  const root = schemas.HookInput;
  return { root, resolve: (s) => resolveWith(s, pick) };
}

function resolveWith(s: Schema, pick: (ref: string) => Schema | undefined): Schema {
  let cur = s;
  for (let i = 0; i < 8 && cur.$ref; i++) cur = { ...(pick(cur.$ref) ?? {}), ...withoutRef(cur) };
  return cur;
}

function withoutRef(s: Schema): Schema {
  const { $ref: _ref, ...rest } = s;
  return rest;
}

/** A jq field: annotated `x-tai42-expression`, or (older servers) a reference to JqField. */
export function isExpression(s: Schema): boolean {
  if ('x-tai42-expression' in s) return true;
  const refs = [s.$ref, ...(s.allOf ?? []).map((a) => a.$ref)].filter(Boolean) as string[];
  return refs.some((r) => /\/JqField$/.test(r));
}
