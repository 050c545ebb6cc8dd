import type { Logger, Settings } from '@hookyard/core';
import type { ToolStore } from '@hookyard/store';
import type { FetchFn } from './http-call';
import { echoTool } from './local/echo';
import { LocalRepo, type LocalTool } from './local/local-repo';
import { printTool } from './local/print';
import { MultiRepo } from './multi-repo';
import { RemoteRepo } from './remote/remote-repo';
import type { ToolRepo } from './types';

export interface CreateToolRepoOptions {
  settings: Settings;
  toolStore: ToolStore;
  logger: Logger;
  /** Used by the remote repo and the webhook tool; defaults to the global fetch. */
  fetch?: FetchFn;
}

/** The built-in tools this deployment's settings turn on. */
export function localTools(options: CreateToolRepoOptions): LocalTool[] {
  return [echoTool, printTool];
}

/**
 * The deployment's composed repo: the local tools first (so a registration can
 * never shadow a built-in), then the registered HTTP services. Allowlists are
 * applied per run by the caller (`AllowlistRepo` with `resolveAllowlist`).
 */
export function createToolRepo(options: CreateToolRepoOptions): ToolRepo {
  const local = new LocalRepo(localTools(options));
  const remote = new RemoteRepo({ toolStore: options.toolStore, logger: options.logger, fetch: options.fetch });
  return new MultiRepo([local, remote], options.logger);
}
