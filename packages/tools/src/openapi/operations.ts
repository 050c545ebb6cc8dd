import type { JsonSchema } from '../types';
import type { DiscoveredTool } from '../provider/types';
import { inlineRefs } from './refs';

const METHODS = ['get', 'put', 'post', 'delete', 'options', 'head', 'patch', 'trace'] as const;
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

/**
 * Walks every path and method of an OpenAPI 3 document into operations: one
 * JSON Schema per operation merging its path, query and header parameters
 * (path-level ones too; the operation's win) with the properties of its JSON
 * request body. Cookie parameters are not exposed. A string says why the
 * document is unusable.
 */
export function parseOpenApi(doc: unknown): OpenApiService | string {
  if (!isPlainObject(doc)) return 'the document is not a JSON object';
  if (typeof doc.openapi !== 'string' || !doc.openapi.startsWith('3.')) return `only OpenAPI 3 documents are supported, got openapi ${JSON.stringify(doc.openapi) ?? 'missing'}`;
  if (!isPlainObject(doc.paths)) return 'the document has no paths object';
  const operations: OpenApiOperation[] = [];
  for (const [path, rawItem] of Object.entries(doc.paths)) {
    const item = inlineRefs(doc, rawItem);
    if (!isPlainObject(item)) continue;
    for (const method of METHODS) {
      const op = item[method];
      if (!isPlainObject(op)) continue;
      operations.push(operationOf(doc, path, method, item, op));
    }
  }
  return { basePath: basePathOf(doc.servers), operations };
}

function operationOf(doc: unknown, path: string, method: string, item: Record<string, unknown>, op: Record<string, unknown>): OpenApiOperation {
  const key = typeof op.operationId === 'string' && op.operationId !== '' ? op.operationId : `${method} ${path}`;
  const properties: Record<string, unknown> = {};
  const required: string[] = [];
  const plan: CallPlan = { path: [], query: [], header: [], body: 'none', bodyArg: 'body' };

  // Path-level parameters first; an operation parameter of the same name and location replaces one.
  const params = new Map<string, Record<string, unknown>>();
  for (const list of [item.parameters, op.parameters]) {
    if (!Array.isArray(list)) continue;
    for (const raw of list) {
      const p = inlineRefs(doc, raw);
      if (isPlainObject(p) && typeof p.name === 'string' && typeof p.in === 'string') params.set(`${p.in}:${p.name}`, p);
    }
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

  const body = jsonBody(doc, op.requestBody);
  let additional: boolean | undefined = false;
  if (body) {
    const bodyProps = isPlainObject(body.schema.properties) ? body.schema.properties : undefined;
    const mergeable = bodyProps && (body.schema.type === undefined || body.schema.type === 'object') && !Object.keys(bodyProps).some((k) => Object.hasOwn(properties, k));
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

  const parameters: JsonSchema = { type: 'object', properties };
  if (required.length > 0) parameters.required = [...new Set(required)];
  if (additional === false) parameters.additionalProperties = false;
  const summary = typeof op.summary === 'string' ? op.summary : '';
  const description = typeof op.description === 'string' ? op.description : '';
  return {
    key,
    method: method.toUpperCase(),
    path,
    description: [summary, description].filter(Boolean).join('\n\n') || `${method.toUpperCase()} ${path}`,
    parameters,
    plan,
  };
}

function jsonBody(doc: unknown, raw: unknown): { schema: Record<string, unknown>; required: boolean; description: string } | undefined {
  const rb = inlineRefs(doc, raw);
  if (!isPlainObject(rb) || !isPlainObject(rb.content)) return undefined;
  const media = Object.entries(rb.content).find(([type]) => JSON_MEDIA.test(type))?.[1];
  if (!isPlainObject(media)) return undefined;
  return {
    schema: isPlainObject(media.schema) ? media.schema : {},
    required: rb.required === true,
    description: typeof rb.description === 'string' ? rb.description : '',
  };
}

/**
 * Calls go to the registered endpoint, never to a host the document names:
 * only the path of a relative `servers[0].url` is kept.
 */
function basePathOf(servers: unknown): string {
  const first: unknown = Array.isArray(servers) ? servers[0] : undefined;
  const url = isPlainObject(first) ? first.url : undefined;
  if (typeof url !== 'string' || !url.startsWith('/')) return '';
  return url.replace(/\/+$/, '');
}
