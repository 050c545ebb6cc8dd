import { badInput, toHookyardError, type Logger, type ToolStore } from '@hookyard/core';
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
 * `catalogue` of every registration's tools; see wire.ts). Never throws: a failure is part of the answer,
 * with its kind, so the ingress can answer 422, 502 or 503 as it would have.
 */
export function createDiscoveryAnswer(options: DiscoveryAnswerOptions): (request: unknown) => Promise<DiscoverAnswer | CatalogueAnswer> {
  const { repo, toolStore, logger } = options;
  return async (request) => {
    try {
      const r = request as { op?: unknown; record?: unknown } | null;
      if (r?.op === 'discover') {
        const record = r.record as Parameters<NonNullable<ToolRepo['discoverRecord']>>[0] | null;
        if (!record || typeof record !== 'object' || typeof record.name !== 'string' || !DISCOVERED_KINDS.has(String(record.kind))) {
          throw badInput('a discover request needs an openapi, mcp or grpc record');
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
