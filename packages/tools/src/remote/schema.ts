import { createSecretResolver, quote, type Logger, type RemoteToolRecord, type SecretResolver } from '@hookyard/core';
import { readBounded, withDeadline, type FetchFn } from '../http-call';
import { resolveHeaders } from '../secret-values';
import type { JsonSchema } from '../types';

/** One function a service describes at `GET {endpoint}/schema`. */
export interface RemoteFunction {
  name: string;
  description: string;
  parameters: JsonSchema;
}

/** A schema lookup is advisory: it never takes longer than this, whatever the tool's own timeout. */
const SCHEMA_TIMEOUT_MS = 5_000;
const SCHEMA_MAX_BYTES = 1024 * 1024;

export function schemaUrl(endpoint: string): string {
  const url = new URL(endpoint);
  url.pathname = `${url.pathname.replace(/\/+$/, '')}/schema`;
  return url.toString();
}

/**
 * Fetches `{endpoint}/schema` -> `{"functions":[{name, description, parameters}]}`.
 * A service without one (non-200, unreachable, malformed) has no schema:
 * null, logged, never an error — the tool is still callable.
 */
export async function fetchSchema(
  fetchFn: FetchFn,
  record: RemoteToolRecord,
  logger: Logger,
  secrets: SecretResolver = createSecretResolver(),
): Promise<RemoteFunction[] | null> {
  const url = schemaUrl(record.endpoint);
  const what = `schema of tool '${record.name}'`;
  try {
    const headers = await resolveHeaders(secrets, what, record.headers);
    return await withDeadline(what, Math.min(record.timeout_ms, SCHEMA_TIMEOUT_MS), undefined, async (signal) => {
      const res = await fetchFn(url, { method: 'GET', headers: new Headers(headers), signal, redirect: 'manual' });
      const body = await readBounded(res, SCHEMA_MAX_BYTES, what);
      if (res.status !== 200) return null;
      const fns = parseFunctions(body);
      if (!fns) logger.warn({ tool: record.name, body: quote(body) }, 'tool /schema reply has no functions list; treated as no schema');
      return fns;
    });
  } catch (err) {
    logger.warn({ err, tool: record.name }, 'tool /schema could not be fetched; treated as no schema');
    return null;
  }
}

function parseFunctions(body: string): RemoteFunction[] | null {
  let parsed: unknown;
  try {
    parsed = JSON.parse(body);
  } catch {
    return null;
  }
  const list = (parsed as { functions?: unknown } | null)?.functions;
  if (!Array.isArray(list)) return null;
  const out: RemoteFunction[] = [];
  for (const f of list) {
    if (f === null || typeof f !== 'object') continue;
    const { name, description, parameters } = f as Record<string, unknown>;
    if (typeof name !== 'string') continue;
    out.push({
      name,
      description: typeof description === 'string' ? description : '',
      parameters: parameters !== null && typeof parameters === 'object' && !Array.isArray(parameters) ? (parameters as JsonSchema) : { type: 'object' },
    });
  }
  return out;
}
