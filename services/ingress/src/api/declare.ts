import Ajv, { type ErrorObject, type ValidateFunction } from 'ajv';
import type { Request, Response, Router } from 'express';
import type { ApiRole, RequestOf, RouteDecl } from '@hookyard/api';
import { badInput, notFound } from '@hookyard/core';
import { requireAgent, requireRole } from './auth';

// verbose: an error carries its schema, so a field's own line (x-error) can be read from it.
const ajv = new Ajv({ allErrors: true, strict: true, verbose: true, logger: false });
// A field's own refusal line (`content must be a non-empty string of jq`), said once whatever rule it broke.
// An object of lines by the keyword broken (`{pattern: ..., maxLength: ...}`) where one field says each miss its own way.
ajv.addKeyword({ keyword: 'x-error', schemaType: ['string', 'object'] });
// Documentation for editors (what a jq field reads), no rule.
ajv.addKeyword({ keyword: 'x-tai42-expression', schemaType: 'object' });
// The formats the declarations name (no ajv-formats here): an RFC 3339 time as the stores write it, and an absolute URI.
ajv.addFormat('date-time', /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}(\.\d+)?(Z|[+-]\d{2}:\d{2})$/);
ajv.addFormat('uri', /^[A-Za-z][A-Za-z0-9+.-]*:\S*$/);
// A query string carries text: a declared integer or boolean is read from it (on a copy, so `{got}` still quotes the text sent).
const ajvQuery = new Ajv({ allErrors: true, strict: true, verbose: true, logger: false, coerceTypes: true });
ajvQuery.addKeyword({ keyword: 'x-error', schemaType: ['string', 'object'] });
ajvQuery.addKeyword({ keyword: 'x-tai42-expression', schemaType: 'object' });

/** A schema for ajv: a plain copy without `$id`s (a named schema appears in many routes; ajv would refuse the repeat). */
function compile(schema: unknown, by: Ajv = ajv): ValidateFunction {
  const strip = (s: unknown): unknown =>
    Array.isArray(s)
      ? s.map(strip)
      : s !== null && typeof s === 'object'
        ? Object.fromEntries(Object.entries(s).flatMap(([k, v]) => (k === '$id' ? [] : [[k, strip(v)]])))
        : s;
  return by.compile(strip(schema) as object);
}

/** What a refusal line quotes (`{got}`): the value as sent, cut at 80 characters. */
const quote = (v: unknown): string => (JSON.stringify(v) ?? 'undefined').slice(0, 80);

/** The field's own line (x-error) for the rule it broke, if it has one. */
const ownOf = (e: ErrorObject): unknown => (e.parentSchema as { 'x-error'?: unknown } | undefined)?.['x-error'];
function ownLine(e: ErrorObject): string | undefined {
  const own = ownOf(e);
  if (typeof own === 'string') return own;
  // By keyword, `*` for any other.
  const byKeyword =
    own !== null && typeof own === 'object' ? ((own as Record<string, unknown>)[e.keyword] ?? (own as Record<string, unknown>)['*']) : undefined;
  // (A missing field's line is requiredLine's.)
  if (e.keyword === 'required') return undefined;
  return typeof byKeyword === 'string' ? byKeyword : undefined;
}

/** An object's own line for a missing field: `x-error.required`, one line or one per field. */
function requiredLine(e: ErrorObject): string | undefined {
  const own = ownOf(e);
  const required = own !== null && typeof own === 'object' ? (own as Record<string, unknown>).required : undefined;
  if (typeof required === 'string') return required;
  const byField = required !== null && typeof required === 'object' ? (required as Record<string, unknown>)[String(e.params.missingProperty)] : undefined;
  return typeof byField === 'string' ? byField : undefined;
}

/** The value at an ajv instance path (`/a/0/b`) of the request as sent. */
function at(data: unknown, instancePath: string): unknown {
  return instancePath
    .split('/')
    .slice(1)
    .map((k) => k.replace(/~1/g, '/').replace(/~0/g, '~'))
    .reduce<unknown>((node, k) => (node !== null && typeof node === 'object' ? (node as Record<string, unknown>)[k] : undefined), data);
}

/**
 * ajv's errors as the API's refusal lines: one line per bad field, naming it.
 * `known`: an unknown field's line lists the known ones; `sent`: the request part as sent (a query before its
 * integers were read), for the quotes.
 */
export function refusalLines(where: 'body' | 'query' | 'params', errors: ErrorObject[], known?: readonly string[], sent?: unknown): string[] {
  const lines: string[] = [];
  const also = known ? ` (known: ${known.join(', ')})` : '';
  // A field's own line before ajv's for the same field (a union's branches each refuse it, the union says it once).
  const firstAt = new Map<string, number>();
  errors.forEach((e, i) => firstAt.set(e.instancePath, firstAt.get(e.instancePath) ?? i));
  errors = errors
    .map((e, i) => ({ e, i }))
    .sort((a, b) => firstAt.get(a.e.instancePath)! - firstAt.get(b.e.instancePath)! || Number(!ownLine(a.e)) - Number(!ownLine(b.e)) || a.i - b.i)
    .map(({ e }) => e);
  // Unknown fields of the request itself first, then each field in its schema's order (the lines as the routes always wrote them).
  const unknownAtTop = (e: ErrorObject) => e.keyword === 'additionalProperties' && !e.instancePath;
  errors = [...errors.filter(unknownAtTop), ...errors.filter((e) => !unknownAtTop(e))];
  const said = new Set<string>();
  for (const e of errors) {
    const path = e.instancePath.slice(1).replace(/\//g, '.');
    const got = sent === undefined ? e.data : at(sent, e.instancePath);
    const own = ownLine(e);
    let line: string;
    if (e.keyword === 'additionalProperties' && own !== undefined) line = own.replace('{field}', () => String(e.params.additionalProperty));
    else if (e.keyword === 'additionalProperties')
      line = `unknown ${where === 'query' ? 'query parameter' : 'field'} '${String(e.params.additionalProperty)}'${also}`;
    else if (e.keyword === 'required' && requiredLine(e) !== undefined) line = requiredLine(e)!.replace('{field}', () => String(e.params.missingProperty));
    else if (e.keyword === 'required') line = `${[path, String(e.params.missingProperty)].filter(Boolean).join('.')} is required`;
    // A query parameter given twice comes as a list (a field whose own line is one string says that line of any miss).
    else if (where === 'query' && path && e.keyword === 'type' && Array.isArray(got) && typeof ownOf(e) !== 'string')
      line = `${path} must be given once, got ${quote(got)}`;
    else if (own !== undefined)
      // `{path}` names the field, `{got}` quotes the value refused, `{length}` says how long it is.
      line = own
        .replace('{path}', () => path)
        .replace('{got}', () => quote(got))
        .replace('{length}', () => String(typeof got === 'string' || Array.isArray(got) ? got.length : 0));
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
  // Each validator is compiled on the route's first request (ajv's generated code for every route is a few MiB
  // the ingress would otherwise hold from start for routes it may never serve); test runs compile them all here.
  const lazy = (schema: RouteDecl['body'], by?: Ajv) => {
    let fn: ValidateFunction | undefined;
    return schema ? () => (fn ??= compile(schema, by)) : undefined;
  };
  const check = {
    params: !own('params') ? lazy(decl.params) : undefined,
    query: !own('query') ? lazy(decl.query, ajvQuery) : undefined,
    body: !own('body') ? lazy(decl.body) : undefined,
  };
  // Answers are checked only in test runs. A stream's answer is written event by event, not through res.json: nothing to check.
  const answers = new Map(
    options.validateAnswers
      ? Object.entries(decl.answers).flatMap(([status, a]) =>
          a.contentType && a.contentType !== 'application/json' ? [] : [[Number(status), compile(a.schema)] as const],
        )
      : [],
  );
  if (options.validateAnswers) for (const c of Object.values(check)) c?.();
  const route = `${decl.method} /api${decl.path}`;
  const refuse = (lines: string[], refused = decl.refused) => {
    // linesInMessage without a message of its own: the lines are the message.
    if (decl.linesInMessage) return badInput(refused ? `${refused}: ${lines.join('; ')}` : lines.join('; '), lines);
    return badInput(refused ?? `${route} refused`, lines);
  };
  const knownOf = (schema: RouteDecl['query']) => (decl.knownInRefusal ? Object.keys((schema?.properties ?? {}) as object) : undefined);
  const method = decl.method.toLowerCase() as 'get' | 'post' | 'put' | 'delete' | 'patch';
  if (decl.role === 'agent' && !decl.agentDoor) throw new Error(`${route} has role 'agent' without agentDoor: true`);
  const door = decl.agentDoor ? requireAgent() : requireRole(decl.role as ApiRole, options.agentWhen ? { agentWhen: options.agentWhen } : {});
  router[method](decl.path, door, async (req, res) => {
    // A final `*rest` parameter comes as its segments.
    const params = Object.fromEntries(Object.entries(req.params).map(([k, v]) => [k, Array.isArray(v) ? v.join('/') : String(v)]));
    const checkParams = check.params?.();
    if (checkParams && !checkParams(params)) {
      if (decl.paramsMiss) throw notFound(decl.paramsMiss(params));
      throw refuse(refusalLines('params', checkParams.errors ?? []), decl.paramsRefused);
    }
    // Read on a copy: express reads req.query anew on each access, and the copy's integers are numbers once checked.
    const checkQuery = check.query?.();
    const query: unknown = checkQuery ? { ...(req.query as object) } : req.query;
    if (checkQuery && !checkQuery(query)) throw refuse(refusalLines('query', checkQuery.errors ?? [], knownOf(decl.query), req.query));
    const body: unknown = req.body;
    // An optional body may be left out (no body, JSON null, or an empty object).
    const bodyLeftOut =
      decl.bodyOptional && (body === undefined || body === null || (typeof body === 'object' && !Array.isArray(body) && !Object.keys(body).length));
    const checkBody = check.body?.();
    if (checkBody && !bodyLeftOut && !checkBody(body)) throw refuse(refusalLines('body', checkBody.errors ?? [], knownOf(decl.body)));
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
    const checked = { params, query, body } as RequestOf<D>;
    await handler(Object.assign(req, { checked }), res);
  });
}
