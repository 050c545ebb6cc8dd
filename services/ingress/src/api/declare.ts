import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { Request, Response, Router } from 'express';
import type { ApiRole, RequestOf, RouteDecl } from '@hookyard/api';
import { badInput, notFound } from '@hookyard/core';
import { requireAgent, requireRole } from './auth';

// verbose: an error carries its schema, so a field's own line (x-error) can be read from it.
const ajv = new Ajv({ allErrors: true, strict: true, verbose: true, logger: false });
// A field's own refusal line (`content must be a non-empty string of jq`), said once whatever rule it broke.
ajv.addKeyword({ keyword: 'x-error', schemaType: 'string' });
// Documentation for editors (what a jq field reads), no rule.
ajv.addKeyword({ keyword: 'x-tai42-expression', schemaType: 'object' });
// The formats the declarations name (no ajv-formats here): an RFC 3339 time as the stores write it, and an absolute URI.
ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
ajv.addFormat('uri', /^[A-Za-z][A-Za-z0-9+.-]*:\S*$/);

/** A schema for ajv: a plain copy without `$id`s (a named schema appears in many routes; ajv would refuse the repeat). */
function compile(schema: unknown): ValidateFunction {
  const strip = (s: unknown): unknown =>
    Array.isArray(s)
      ? s.map(strip)
      : s !== null && typeof s === 'object'
        ? Object.fromEntries(Object.entries(s).flatMap(([k, v]) => (k === '$id' ? [] : [[k, strip(v)]])))
        : s;
  return ajv.compile(strip(schema) as object);
}

/** ajv's errors as the API's refusal lines: one line per bad field, naming it. */
export function refusalLines(where: 'body' | 'query' | 'params', errors: ErrorObject[], known?: readonly string[]): string[] {
  const lines: string[] = [];
  const also = known ? ` (known: ${known.join(', ')})` : '';
  // Unknown fields first, then each field in its schema's order (the lines as the routes always wrote them).
  errors = [...errors.filter((e) => e.keyword === 'additionalProperties'), ...errors.filter((e) => e.keyword !== 'additionalProperties')];
  const said = new Set<string>();
  for (const e of errors) {
    const path = e.instancePath.slice(1).replace(/\//g, '.');
    let line: string;
    if (e.keyword === 'additionalProperties')
      line = `unknown ${where === 'query' ? 'query parameter' : 'field'} '${String(e.params.additionalProperty)}'${also}`;
    else if (e.keyword === 'required') line = `${[path, String(e.params.missingProperty)].filter(Boolean).join('.')} is required`;
    else if (typeof (e.parentSchema as { 'x-error'?: unknown } | undefined)?.['x-error'] === 'string')
      // `{got}` quotes the value refused.
      line = (e.parentSchema as { 'x-error': string })['x-error'].replace('{got}', () => JSON.stringify(e.data) ?? 'undefined');
    else if (!path && e.keyword === 'type') line = `the ${where} must be a JSON ${String(e.params.type)}`;
    else if (!path) line = `the ${where} ${e.message ?? 'is refused'}`;
    else if (e.keyword === 'type') line = `${path} must be a ${String(e.params.type)}`;
    else line = `${path} ${e.message ?? 'is refused'}`;
    const key = path && e.keyword !== 'additionalProperties' && e.keyword !== 'required' ? `field:${path}` : line;
    if (said.has(key)) continue;
    said.add(key);
    lines.push(line);
  }
  return lines;
}

/** The handler of a declared route: its request already checked against the declaration. */
export type DeclaredHandler<D extends RouteDecl> = (req: Request & { checked: RequestOf<D> }, res: Response) => unknown;

/** Whether answers are checked against their declared schemas (test runs: the app factory's `validateAnswers`). */
export interface DeclareOptions {
  validateAnswers?: boolean;
  /** An agent token may call the route when this says so of the request (`requireRole`'s agentWhen). */
  agentWhen?: (req: Request) => boolean;
}

/** Thrown when a declared route answers a body its declaration does not allow (tests only): the request fails with 500. */
export class AnswerDriftError extends Error {}

/**
 * Mounts a declared route on the management router: the role its
 * declaration names, its path parameters, query and body validated by ajv
 * (a refused request is bad_input with one line per bad field; a path
 * parameter that fails is the declaration's 404 when it names one), then the
 * handler. The audit action is read from the declaration by the trail.
 */
export function mount<D extends RouteDecl>(router: Router, decl: D, handler: DeclaredHandler<D>, options: DeclareOptions = {}): void {
  const own = (part: 'params' | 'query' | 'body') => decl.handlerChecks?.includes(part) ?? false;
  const check = {
    params: decl.params && !own('params') ? compile(decl.params) : undefined,
    query: decl.query && !own('query') ? compile(decl.query) : undefined,
    body: decl.body && !own('body') ? compile(decl.body) : undefined,
  };
  // A stream's answer is written event by event, not through res.json: nothing to check here.
  const answers = new Map(
    Object.entries(decl.answers).flatMap(([status, a]) =>
      a.contentType && a.contentType !== 'application/json' ? [] : [[Number(status), compile(a.schema)] as const],
    ),
  );
  const route = `${decl.method} /api${decl.path}`;
  const method = decl.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete' | 'patch';
  if (decl.role === 'agent' && !decl.agentDoor) throw new Error(`${route} has role 'agent' without agentDoor: true`);
  const door = decl.agentDoor ? requireAgent() : requireRole(decl.role as ApiRole, options.agentWhen ? { agentWhen: options.agentWhen } : {});
  router[method](decl.path, door, async (req, res) => {
    // A final `*rest` parameter comes as its segments.
    const params = Object.fromEntries(Object.entries(req.params).map(([k, v]) => [k, Array.isArray(v) ? v.join('/') : String(v)]));
    if (check.params && !check.params(params)) {
      if (decl.paramsMiss) throw notFound(decl.paramsMiss(params));
      throw badInput(decl.refused ?? `${route} refused`, refusalLines('params', check.params.errors ?? []));
    }
    if (check.query && !check.query(req.query)) {
      const known = decl.knownInRefusal ? Object.keys((decl.query?.properties ?? {}) as object) : undefined;
      throw badInput(decl.refused ?? `${route} refused`, refusalLines('query', check.query.errors ?? [], known));
    }
    if (check.body && !check.body(req.body)) throw badInput(decl.refused ?? `${route} refused`, refusalLines('body', check.body.errors ?? []));
    if (options.validateAnswers) {
      const json = res.json.bind(res);
      res.json = (body: unknown) => {
        const validate = answers.get(res.statusCode);
        // Error answers (4xx/5xx) are the shared Error shape, checked by the error handler's own tests.
        if (res.statusCode < 400) {
          if (!validate) throw new AnswerDriftError(`${route} answered ${res.statusCode}, which its declaration does not list`);
          if (!validate(body))
            throw new AnswerDriftError(`${route} answered ${res.statusCode} off its declared shape: ${refusalLines('body', validate.errors ?? []).join('; ')}`);
        }
        return json(body);
      };
    }
    const checked = { params, query: req.query as unknown, body: req.body as unknown } as RequestOf<D>;
    await handler(Object.assign(req, { checked }), res);
  });
}
