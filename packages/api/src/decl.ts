import type { Static, TSchema } from '@sinclair/typebox';

export type ApiRole = 'reader' | 'operator' | 'admin';
export type ApiMethod = 'GET' | 'POST' | 'PUT' | 'DELETE' | 'PATCH';

/** One answer of a route: what the OpenAPI document says of it and the shape of its JSON body. */
export interface Answer<S extends TSchema = TSchema> {
  description: string;
  schema: S;
  /** The media type of the body (default application/json); `text/event-stream`: a stream whose events' `data` is the schema. */
  contentType?: string;
  /** Headers of this answer, as OpenAPI header objects (`Retry-After`). */
  headers?: Record<string, Record<string, unknown>>;
  /** The answer has no body the document describes (a handshake, an SSE stream of the protocol's own). */
  noBody?: true;
}

/** An answer, for a declaration's `answers` map. */
export function answer<S extends TSchema>(description: string, schema: S, contentType?: string): Answer<S> {
  return contentType ? { description, schema, contentType } : { description, schema };
}

/** An answer without a body the document describes. */
export function bare(description: string): Answer {
  return { description, schema: {} as TSchema, noBody: true };
}

/**
 * One management route, declared once: the server mounts it (role check,
 * request validation, audit action, answer validation in tests), the OpenAPI
 * document is generated from it and clients take its types.
 */
export interface RouteDecl {
  method: ApiMethod;
  /** The route under its base as express registers it (`:param`, a final `*rest`). */
  path: string;
  /** Where the route lives (default `/api`; `''` for the door, links and ops at the root). */
  base?: string;
  /** The management role it needs; `agent` for a route of the agent door (with `agentDoor`); `public` for no token. */
  role: ApiRole | 'agent' | 'public';
  /**
   * The route's own security (`[]`: open; `[{ agentToken: [] }]`): it answers its own 401/403/429/500, so the
   * management API's shared ones are not added.
   */
  security?: ReadonlyArray<Record<string, readonly string[]>>;
  /** The media type of the body (default application/json; the door takes any). */
  bodyContentType?: string;
  /** Answered before express (the door): the app's routes do not list it. */
  beforeExpress?: true;
  /** The agent door: an agent token (or an OAuth access token naming an agent) only; a management token is 403. */
  agentDoor?: true;
  /** Headers of the answers, for the document (`Hookyard-Call-Id`). */
  answerHeaders?: Record<string, string>;
  /** Request headers the route reads, for the document. */
  requestHeaders?: Record<string, string>;
  operationId: string;
  tag: string;
  summary: string;
  description?: string;
  params?: TSchema;
  query?: TSchema;
  body?: TSchema;
  /**
   * Parts of the request the handler checks itself (a validator shared with another door, or refusal
   * lines its tests pin that a schema cannot write: `got ...` quoting the value, did-you-mean, registry
   * lookups, cross-field rules):
   * their schemas document them, ajv does not run them.
   */
  handlerChecks?: ReadonlyArray<'params' | 'query' | 'body'>;
  /** The body may be left out (the document says `required: false`). */
  bodyOptional?: boolean;
  /** An unknown query parameter's or body field's line lists the known ones: `unknown query parameter 'x' (known: a, b)`. */
  knownInRefusal?: boolean;
  /** The message of the bad_input a refused request answers; its details are one line per bad field. */
  refused?: string;
  /** The message when the path parameters are refused (default: `refused`). */
  paramsRefused?: string;
  /** The message of that bad_input goes on with its lines (`refused: line; line`; without `refused`, the lines are the message). */
  linesInMessage?: boolean;
  /** A path parameter that fails its schema is no such record: the 404's message (default: bad_input). */
  paramsMiss?: (params: Record<string, string>) => string;
  /** Success answers (and any answer with its own body shape), by status. */
  answers: Record<number, Answer>;
  /** Error statuses the route answers besides 401, 403, 429 and 500 (the body is the shared Error shape). */
  errors?: number[];
  /** The audit action a change through this route is recorded under (absent: a read, or recorded under its method and route). */
  audit?: string;
  /** What bounds the request, for the document (body caps are the router's, HOOKS_API_BODY_MAX_BYTES). */
  limits?: string;
}

/** Keeps a declaration's literal types (its schemas) for the types derived from it. */
export function route<const D extends RouteDecl>(decl: D): D {
  return decl;
}

type Field<D, K extends string> = D extends Record<K, infer S extends TSchema> ? Static<S> : undefined;

/** The validated request of a declared route: its path parameters, query and body. */
export interface RequestOf<D extends RouteDecl> {
  params: Field<D, 'params'>;
  query: Field<D, 'query'>;
  body: Field<D, 'body'>;
}

/** The JSON body a declared route answers with a status (default: every declared answer). */
export type AnswerOf<D extends RouteDecl, S extends keyof D['answers'] = keyof D['answers']> = D['answers'][S] extends Answer<infer T> ? Static<T> : never;
