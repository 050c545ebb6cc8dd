import type { JsonSchema } from '../types';
import { lazy } from '../lazy';

// The converter and the format list load with the first OpenAPI document, not with the package.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const converter = lazy(() => require('@openapi-contrib/openapi-schema-to-json-schema') as typeof import('@openapi-contrib/openapi-schema-to-json-schema'));

/** Which dialect a document's schemas are written in. */
export type SchemaDialect = '3.0' | '3.1';

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** Formats a JSON Schema validator knows (ajv-formats' full set); any other is a hint no validator can check. */
// eslint-disable-next-line @typescript-eslint/no-require-imports
const knownFormats = lazy(() => new Set(Object.keys((require('ajv-formats/dist/formats') as typeof import('ajv-formats/dist/formats')).fullFormats)));
/** OpenAPI's own schema keywords, none of them JSON Schema: dropped from 3.1 schemas too. */
const OPENAPI_ONLY = ['discriminator', 'xml', 'externalDocs', 'example'];

/**
 * The JSON Schema of a request (an operation's arguments) from an OpenAPI
 * schema. OpenAPI 3.0 schemas go through @openapi-contrib's converter:
 * `nullable` becomes a `null` type (or, without a `type`, an `anyOf` with
 * `{"type":"null"}`), `readOnly` properties are dropped (a request cannot set
 * them), `discriminator`, `example`, `xml`, `externalDocs` and `deprecated`
 * go. On top of it: boolean `exclusiveMinimum/Maximum` (draft 4) become the
 * numeric form, `x-*` extensions and formats no validator knows are dropped.
 * OpenAPI 3.1 schemas are JSON Schema already: only OpenAPI's own keywords,
 * `x-*`, unknown formats and `readOnly` properties go.
 */
export function requestSchema(schema: JsonSchema, dialect: SchemaDialect): JsonSchema {
  if (dialect === '3.1') return cleanJsonSchema(schema);
  const out = converter().fromSchema(schema, {
    cloneSchema: true,
    removeReadOnly: true,
    beforeTransform: (s) => nullableWithoutType(s as Record<string, unknown>) as never,
    afterTransform: (s) => draft7Node(s as Record<string, unknown>) as never,
  }) as JsonSchema;
  delete out.$schema; // draft 4 by the converter's own account; the output is valid draft 7 and 2020-12
  return out;
}

/** `{nullable: true}` without a `type`: the converter would only drop it; null stays allowed. */
function nullableWithoutType(s: Record<string, unknown>): Record<string, unknown> {
  if (s.nullable !== true || 'type' in s) return s;
  const { nullable: _n, description, title, default: dflt, ...rest } = s;
  const out: Record<string, unknown> = { anyOf: [rest, { type: 'null' }] };
  if (description !== undefined) out.description = description;
  if (title !== undefined) out.title = title;
  if (dflt !== undefined) out.default = dflt;
  return out;
}

function draft7Node(s: Record<string, unknown>): Record<string, unknown> {
  numericBounds(s);
  dropUnknown(s);
  return s;
}

/** Draft 4's `exclusiveMinimum: true` beside `minimum` is `exclusiveMinimum: <minimum>` from draft 6 on. */
function numericBounds(s: Record<string, unknown>): void {
  for (const [flag, bound] of [
    ['exclusiveMinimum', 'minimum'],
    ['exclusiveMaximum', 'maximum'],
  ] as const) {
    if (typeof s[flag] !== 'boolean') continue;
    if (s[flag] === true && typeof s[bound] === 'number') {
      s[flag] = s[bound];
      delete s[bound];
    } else delete s[flag];
  }
}

function dropUnknown(s: Record<string, unknown>): void {
  for (const k of Object.keys(s)) if (k.startsWith('x-')) delete s[k];
  if (typeof s.format === 'string' && !knownFormats().has(s.format)) delete s.format;
}

/** A 3.1 schema: every subschema walked (any keyword may hold one), OpenAPI's keywords and readOnly properties dropped. */
function cleanJsonSchema(value: unknown): JsonSchema {
  return clean(value) as JsonSchema;
}

function clean(value: unknown): unknown {
  if (Array.isArray(value)) return value.map(clean);
  if (!isPlainObject(value)) return value;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    if (OPENAPI_ONLY.includes(k)) continue;
    if (k === 'properties' && isPlainObject(v)) {
      const kept = Object.entries(v).filter(([, p]) => !(isPlainObject(p) && p.readOnly === true));
      setKey(out, k, Object.fromEntries(kept.map(([name, p]) => [name, clean(p)])));
      continue;
    }
    setKey(out, k, clean(v));
  }
  numericBounds(out); // not 3.1, but seen in documents that say 3.1
  dropUnknown(out);
  if (Array.isArray(out.required) && isPlainObject(value.properties)) {
    const props = out.properties as Record<string, unknown>;
    const required = out.required.filter((n) => typeof n !== 'string' || Object.hasOwn(props, n) || !Object.hasOwn(value.properties as object, n));
    if (required.length > 0) out.required = required;
    else delete out.required;
  }
  return out;
}

/** defineProperty: a `__proto__` key in a document stays a plain key. */
function setKey(o: Record<string, unknown>, k: string, v: unknown): void {
  Object.defineProperty(o, k, { value: v, enumerable: true, writable: true, configurable: true });
}
