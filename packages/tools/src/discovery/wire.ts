import { HookyardError, type ErrorKind } from '@hookyard/core';
import { OpenApiDocumentError } from '../openapi/discover';
import type { ToolInfo } from '../types';

/**
 * What the ingress asks the executors (see DiscoveryRequester in the bus):
 * - `discover`: read a registration now and name its tools. The request names
 *   the record, never carries it: `name` is a stored registration, `pending`
 *   the id of one `POST /api/tools` validated and wrote to the tool store
 *   (ToolStore.putPendingTool) before storing it. The executor reads the
 *   record from the store, so only a record the store holds is dialled and
 *   has its secrets resolved; a request carrying a `record` is refused.
 * - `catalogue`: every tool the stored registrations provide (HTTP services,
 *   OpenAPI operations, MCP tools, gRPC methods), with its schema.
 */
export type DiscoveryRequest = { op: 'discover'; name: string } | { op: 'discover'; pending: string } | { op: 'catalogue' };

/** An error as it crosses the wire: its kind and message, and whether a document was unusable (not JSON, not OpenAPI). */
export interface WireError {
  kind: ErrorKind;
  message: string;
  details?: string[];
  document?: 'not_json' | 'not_openapi';
}

export type DiscoverAnswer = { ok: true; tools: string[] } | { ok: false; error: WireError };
export type CatalogueAnswer = { ok: true; tools: ToolInfo[] } | { ok: false; error: WireError };

export function toWireError(e: HookyardError): WireError {
  return {
    kind: e.kind,
    message: e.message,
    ...(e.details ? { details: [...e.details] } : {}),
    ...(e instanceof OpenApiDocumentError ? { document: e.reason } : {}),
  };
}

/** The error back on the ingress's side, with its class when a document was unusable (registration answers 422 then). */
export function fromWireError(w: WireError): HookyardError {
  if (w.document) return new OpenApiDocumentError(w.document, w.message);
  return new HookyardError(w.kind, w.message, w.details ? { details: w.details } : {});
}

/** An answer of an unexpected shape (an executor of another version): internal, saying so. */
export function malformedAnswer(what: string): HookyardError {
  return new HookyardError('internal', `the executor's answer to the ${what} request has an unexpected shape`);
}
