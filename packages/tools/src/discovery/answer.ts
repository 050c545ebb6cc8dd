import { badInput, forbidden, notFound, toHookyardError, type Logger, type RemoteToolRecord, type ToolStore } from '@hookyard/core';
import type { ToolInfo, ToolRepo } from '../types';
import { toWireError, type CatalogueAnswer, type DiscoverAnswer } from './wire';

/** The registration kinds whose tools are discovered from the service. */
export const DISCOVERED_KINDS: ReadonlySet<string> = new Set(['openapi', 'mcp', 'grpc']);

export interface DiscoveryAnswerOptions {
  /** The executor's composed repo: it dials, spawns and caches. */
  repo: ToolRepo;
  toolStore: ToolStore;
  logger: Logger;
}

/**
 * The executor's answer to the ingress's discovery requests (`discover`,
 * `catalogue` of every registration's tools; see wire.ts). A `discover`
 * request names a stored registration (`name`) or a pending one (`pending`,
 * written by `POST /api/tools` after its validation); the record is read from
 * the tool store here, so nothing a NATS client sends is dialled, spawned or
 * given a secret. A request carrying a `record` is refused and logged.
 * Never throws: a failure is part of the answer, with its kind, so the
 * ingress can answer 422, 502 or 503 as it would have.
 */
export function createDiscoveryAnswer(options: DiscoveryAnswerOptions): (request: unknown) => Promise<DiscoverAnswer | CatalogueAnswer> {
  const { repo, toolStore, logger } = options;
  return async (request) => {
    try {
      const r = request as { op?: unknown } | null;
      if (r?.op === 'discover') {
        const record = await recordNamedBy(request as Record<string, unknown>, toolStore, logger);
        if (!DISCOVERED_KINDS.has(record.kind)) {
          throw badInput(`${record.kind} tool '${record.name}' is not discovered (only openapi, mcp and grpc registrations are)`);
        }
        const tools = await repo.discoverRecord?.(record);
        if (tools === undefined) throw badInput(`no provider on this executor discovers ${String(record.kind)} tools`);
        return { ok: true, tools };
      }
      if (r?.op === 'catalogue') {
        // Every registration, HTTP services too: their `/schema` is read here, not on the ingress.
        const records = await toolStore.listTools();
        const tools: ToolInfo[] = [];
        for (const record of records) {
          try {
            tools.push(...(await repo.tools(record.name)));
          } catch (err) {
            // One service out of reach does not hide the others (its discovery status says why).
            logger.debug({ err, tool: record.name }, 'discovered tool service skipped in the catalogue');
          }
        }
        return { ok: true, tools };
      }
      throw badInput(`unknown discovery request ${JSON.stringify(r?.op ?? null)}`);
    } catch (err) {
      return { ok: false, error: toWireError(toHookyardError(err)) };
    }
  };
}

/** The record a `discover` request names, read from the store; a request that carries one, or names none, is refused. */
async function recordNamedBy(request: Record<string, unknown>, toolStore: ToolStore, logger: Logger): Promise<RemoteToolRecord> {
  if ('record' in request) {
    logger.warn({ keys: Object.keys(request).slice(0, 10) }, 'discovery request refused: it carries a record');
    throw forbidden(
      'a discovery request names a registered tool ({"op":"discover","name":...}) and never carries a record; register it with POST /api/tools, which discovers it',
    );
  }
  const { name, pending } = request;
  if (typeof pending === 'string' && name === undefined) {
    const record = await toolStore.takePendingTool(pending);
    if (!record) throw notFound('the pending registration named by this discovery request is gone (expired, or already discovered); register it again');
    return record;
  }
  if (typeof name === 'string' && pending === undefined) {
    const record = await toolStore.getTool(name);
    if (!record) throw notFound(`tool '${name.slice(0, 100)}' is not a registered tool service`);
    return record;
  }
  throw badInput('a discover request names one registered tool ("name") or one pending registration ("pending")');
}
