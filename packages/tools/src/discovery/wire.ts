import { HookyardError, type ErrorKind, type RemoteToolRecord } from '@hookyard/core';
import { OpenApiDocumentError } from '../openapi/discover';
import type { ToolInfo } from '../types';

/**
 * What the ingress asks the executors (see DiscoveryRequester in the bus):
 * - `discover`: read this registration now (stored or not) and name its tools;
 * - `catalogue`: every tool the stored registrations provide (HTTP services,
 *   OpenAPI operations, MCP tools, gRPC methods), with its schema.
 */
export type DiscoveryRequest = { op: 'discover'; record: RemoteToolRecord } | { op: 'catalogue' };

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
