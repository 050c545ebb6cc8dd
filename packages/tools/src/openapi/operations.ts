import type { JsonSchema } from '../types';
import type { DiscoveredTool } from '../provider/types';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { requestSchema, type SchemaDialect } from './json-schema';

const JSON_MEDIA = /^application\/(?:[a-z0-9.+-]*\+)?json(?:\s*;.*)?$/i;

/** How a call's arguments go back onto the wire. */
export interface CallPlan {
  path: string[];
  query: string[];
  header: string[];
  /** `merge`: the body's properties are top-level arguments; `whole`: one `body` argument; `none`: no JSON body. */
  body: 'none' | 'merge' | 'whole';
  /** The argument holding the body in `whole` mode. */
  bodyArg: string;
}

/** One operation of a service's OpenAPI document. */
export interface OpenApiOperation extends DiscoveredTool {
  method: string;
  /** The path template, e.g. `/pets/{petId}`. */
  path: string;
  plan: CallPlan;
}

export interface OpenApiService {
  /** The path of a relative `servers[0].url` (e.g. `/v1`); '' otherwise. */
  basePath: string;
  operations: OpenApiOperation[];
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);

/** One operation as `slim.js` leaves it: its parameters and request body with references inlined. */
export interface SlimOperation {
  key: string;
  method: string;
  path: string;
  summary: string;
  description: string;
  parameters: unknown[];
  requestBody?: unknown;
}

/** A slimmed document: its dialect, base path and operations; or why it is unusable. */
export type SlimDocument = { version: SchemaDialect; basePath: string; operations: SlimOperation[] } | { error: string };

/**
 * `slim.js` from `src` (jest) or from the built package (dist has no copy:
 * the package ships `src` too). Plain JavaScript, so the discovery worker can
 * load it with no build step.
 */
export function slimModulePath(file: 'slim.js' | 'slim-worker.js'): string {
  const here = join(__dirname, file);
  return existsSync(here) ? here : join(__dirname, '..', '..', 'src', 'openapi', file);
}

// eslint-disable-next-line @typescript-eslint/no-require-imports
const slim = require(slimModulePath('slim.js')) as { slimDocument(doc: unknown): SlimDocument };

/** A parsed document reduced to its operations' parameters and request bodies (see slim.js). */
export const slimDocument: (doc: unknown) => SlimDocument = slim.slimDocument;

/**
 * Walks every path and method of an OpenAPI 3 document into operations: one
 * JSON Schema per operation merging its path, query and header parameters
 * (path-level ones too; the operation's win) with the properties of its JSON
 * request body. Cookie parameters are not exposed. A string says why the
 * document is unusable. Synchronous: for documents small enough to parse in
 * one step (the provider sends large ones to a worker).
 */
export function parseOpenApi(doc: unknown): OpenApiService | string {
  const slimmed = slim.slimDocument(doc);
  if ('error' in slimmed) return slimmed.error;
  return { basePath: slimmed.basePath, operations: slimmed.operations.map((o) => operationOf(o, slimmed.version)) };
}

/** One slim operation as a tool: its arguments' JSON Schema (converted, see requestSchema) and its call plan. */
export function operationOf(op: SlimOperation, dialect: SchemaDialect): OpenApiOperation {
  const { key, method, path } = op;
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const plan: CallPlan = { path: [], query: [], header: [], body: 'none', bodyArg: 'body' };

  // Path-level parameters come first in the list; an operation parameter of the same name and location replaces one.
  const params = new Map<string, Record<string, unknown>>();
  for (const p of op.parameters) {
    if (isPlainObject(p) && typeof p.name === 'string' && typeof p.in === 'string') params.set(`${p.in}:${p.name}`, p);
  }
  for (const p of params.values()) {
    const name = p.name as string;
    const where = p.in as string;
    if (where !== 'path' && where !== 'query' && where !== 'header') continue;
    // Two locations may share a name (an `id` in path and in query); the first keeps it.
    if (Object.hasOwn(properties, name)) continue;
    plan[where].push(name);
    const schema: Record<string, unknown> = isPlainObject(p.schema) ? { ...p.schema } : {};
    if (typeof p.description === 'string' && schema.description === undefined) schema.description = p.description;
    properties[name] = schema;
    if (where === 'path' || p.required === true) required.push(name);
  }

  const body = jsonBody(op.requestBody);
  let additional: boolean | undefined = false;
  if (body) {
    const bodyProps = isPlainObject(body.schema.properties) ? body.schema.properties : undefined;
    const mergeable =
      bodyProps && (body.schema.type === undefined || body.schema.type === 'object') && !Object.keys(bodyProps).some((k) => Object.hasOwn(properties, k));
    if (mergeable) {
      plan.body = 'merge';
      for (const [k, v] of Object.entries(bodyProps)) properties[k] = v;
      if (body.required && Array.isArray(body.schema.required)) required.push(...body.schema.required.filter((k): k is string => typeof k === 'string'));
      // Arguments beyond the declared ones go into the body unless the body forbids them.
      additional = body.schema.additionalProperties === false ? false : undefined;
    } else {
      plan.body = 'whole';
      while (Object.hasOwn(properties, plan.bodyArg)) plan.bodyArg = `_${plan.bodyArg}`;
      properties[plan.bodyArg] = { ...body.schema, ...(body.description ? { description: body.description } : {}) };
      if (body.required) required.push(plan.bodyArg);
    }
  }

  const raw: JsonSchema = { type: 'object', properties };
  if (required.length > 0) raw.required = [...new Set(required)];
  if (additional === false) raw.additionalProperties = false;
  const parameters = requestSchema(raw, dialect);
  const { summary, description } = op;
  return {
    key,
    method: method.toUpperCase(),
    path,
    description: [summary, description].filter(Boolean).join('\n\n') || `${method.toUpperCase()} ${path}`,
    parameters,
    plan,
  };
}

function jsonBody(rb: unknown): { schema: Record<string, unknown>; required: boolean; description: string } | undefined {
  if (!isPlainObject(rb) || !isPlainObject(rb.content)) return undefined;
  const media = Object.entries(rb.content).find(([type]) => JSON_MEDIA.test(type))?.[1];
  if (!isPlainObject(media)) return undefined;
  return {
    schema: isPlainObject(media.schema) ? media.schema : {},
    required: rb.required === true,
    description: typeof rb.description === 'string' ? rb.description : '',
  };
}
