import type { TSchema } from '@sinclair/typebox';
import type { RouteDecl } from './decl';
import { ApiError, ERROR_RESPONSES, SKELETON } from './skeleton';

type Obj = Record<string, unknown>;

/** Every management route answers these besides its own. */
const API_FAILS = [401, 403, 429, 500];

/** Express path -> OpenAPI path: `:name` and `*name` become `{name}`. */
export function openApiPath(path: string, base = '/api'): string {
  return `${base}${path}`.replace(/[:*]([A-Za-z_][A-Za-z0-9_]*)/g, '{$1}');
}

/** A plain JSON copy of a schema (TypeBox's symbol keys dropped), each named schema (`$id`) replaced by a $ref and collected. */
function plain(schema: unknown, named: Map<string, Obj>): unknown {
  if (Array.isArray(schema)) return schema.map((s) => plain(s, named));
  if (schema === null || typeof schema !== 'object') return schema;
  const { $id, ...rest } = schema as Obj;
  const out: Obj = {};
  for (const [k, v] of Object.entries(rest)) out[k] = plain(v, named);
  if (typeof $id !== 'string') return out;
  named.set($id, out);
  return { $ref: `#/components/schemas/${$id}` };
}

const props = (s: TSchema | undefined): Array<[string, TSchema, boolean]> => {
  if (!s) return [];
  const required = new Set((s.required as string[] | undefined) ?? []);
  return Object.entries((s.properties ?? {}) as Record<string, TSchema>).map(([k, v]) => [k, v, required.has(k)]);
};

function operation(d: RouteDecl, named: Map<string, Obj>): Obj {
  const parameters = [
    ...props(d.params).map(([name, s]) => {
      const { description, ...schema } = plain(s, named) as Obj;
      return { name, in: 'path', required: true, ...(description ? { description } : {}), schema };
    }),
    ...props(d.query).map(([name, s, required]) => {
      const { description, ...schema } = plain(s, named) as Obj;
      return { name, in: 'query', required, ...(description ? { description } : {}), schema };
    }),
    ...Object.entries(d.requestHeaders ?? {}).map(([name, description]) => ({ name, in: 'header', required: false, description, schema: { type: 'string' } })),
  ];
  const headers = d.answerHeaders
    ? { headers: Object.fromEntries(Object.entries(d.answerHeaders).map(([h, description]) => [h, { description, schema: { type: 'string' } }])) }
    : {};
  const responses: Obj = {};
  for (const [status, a] of Object.entries(d.answers))
    // 204 has no body.
    responses[status] =
      status === '204' || a.noBody
        ? { description: a.description, ...(a.headers ? { headers: a.headers } : {}) }
        : {
            description: a.description,
            ...(a.headers ? { headers: a.headers } : headers),
            content: { [a.contentType ?? 'application/json']: { schema: plain(a.schema, named) } },
          };
  // A route with its own security answers its own refusals.
  for (const code of [...(d.errors ?? []), ...(d.security ? [] : API_FAILS)]) responses[String(code)] = { $ref: `#/components/responses/E${code}` };
  const description = [d.agentDoor || d.role === 'public' ? '' : `Needs the ${d.role} role.`, d.description, d.limits].filter(Boolean).join(' ');
  return {
    ...(d.security ? { security: d.security } : {}),
    summary: d.summary,
    ...(description ? { description } : {}),
    ...(d.role === 'public' ? {} : { 'x-hookyard-role': d.role }),
    ...(d.audit ? { 'x-hookyard-audit': d.audit } : {}),
    tags: [d.tag],
    operationId: d.operationId,
    ...(parameters.length ? { parameters } : {}),
    ...(d.body ? { requestBody: { required: !d.bodyOptional, content: { [d.bodyContentType ?? 'application/json']: { schema: plain(d.body, named) } } } } : {}),
    responses,
  };
}

/**
 * The OpenAPI document, generated: the skeleton (info, tags, security
 * schemes, the shared error answers) and the declared routes' operations,
 * their named schemas collected under components.
 */
export function openApiDocument(routes: readonly RouteDecl[]): Obj {
  const named = new Map<string, Obj>();
  plain(ApiError, named);
  const paths: Record<string, Obj> = {};
  for (const d of routes) {
    const p = openApiPath(d.path, d.base);
    paths[p] = { ...(paths[p] ?? {}), [d.method.toLowerCase()]: operation(d, named) };
  }
  const { securitySchemes, ...skeleton } = SKELETON;
  return { ...skeleton, paths, components: { securitySchemes, schemas: Object.fromEntries(named), responses: ERROR_RESPONSES } };
}
