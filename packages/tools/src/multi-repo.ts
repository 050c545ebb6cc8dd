import { HookyardError, markNotSent, notFound, toHookyardError, type Logger, type RemoteToolRecord } from '@hookyard/core';
import type { JsonSchema, ToolCallContext, ToolInfo, ToolRepo } from './types';

/**
 * Composes repos into one namespace: a call goes to the first repo that
 * supports the name; listing is the de-duplicated union. A repo that fails
 * while listing is skipped and reported, and does not break the others.
 */
export class MultiRepo implements ToolRepo {
  constructor(
    private readonly repos: readonly ToolRepo[],
    private readonly logger?: Logger,
  ) {}

  /** The repo listing `name`, else the first listing failure (a name it could not check), else undefined. */
  private async owner(name: string): Promise<ToolRepo | HookyardError | undefined> {
    let failure: HookyardError | undefined;
    for (const repo of this.repos) {
      try {
        if ((await repo.names()).includes(name)) return repo;
      } catch (err) {
        failure ??= toHookyardError(err);
        this.logger?.warn({ err, tool: name }, 'tool repo failed while listing; skipped');
      }
    }
    return failure;
  }

  async exec(name: string, args: Record<string, unknown>, ctx: ToolCallContext): Promise<unknown> {
    const repo = await this.owner(name);
    // A repo that could not list (its store is down) may hold the name: that is its
    // failure (e.g. unavailable, retried), not "not registered"; and nothing was called.
    if (repo instanceof HookyardError) throw markNotSent(repo);
    if (!repo) throw notFound(`tool '${name}' is not a registered tool`);
    return repo.exec(name, args, ctx);
  }

  async names(): Promise<string[]> {
    const seen = new Set<string>();
    for (const repo of this.repos) {
      try {
        for (const n of await repo.names()) seen.add(n);
      } catch (err) {
        this.logger?.warn({ err }, 'tool repo failed while listing; skipped');
      }
    }
    return [...seen].sort();
  }

  async schema(name: string): Promise<JsonSchema | undefined> {
    const repo = await this.owner(name);
    return repo && !(repo instanceof HookyardError) ? repo.schema(name) : undefined;
  }

  /**
   * The first repo that knows the name answers. A provider name (an OpenAPI
   * or MCP registration) is not itself a tool name, so every repo is asked in
   * turn rather than only the one listing the name.
   */
  async tools(providerName: string): Promise<ToolInfo[]> {
    for (const repo of this.repos) {
      const found = await repo.tools(providerName);
      if (found.length > 0) return found;
    }
    return [];
  }

  /** The first repo that serves the record's kind discovers it. */
  async discoverRecord(record: RemoteToolRecord): Promise<string[] | undefined> {
    for (const repo of this.repos) {
      const found = await repo.discoverRecord?.(record);
      if (found !== undefined) return found;
    }
    return undefined;
  }

  /** Closes every composed repo that holds something; one failing does not keep the others open. */
  async close(): Promise<void> {
    const results = await Promise.allSettled(this.repos.map(async (r) => r.close?.()));
    for (const r of results) if (r.status === 'rejected') this.logger?.warn({ err: r.reason as unknown }, 'tool repo failed to close');
  }
}
