import { createSecretResolver, secretScopeOf, type Logger, type SecretResolver, type Settings } from '@hookyard/core';
import type { StateStore, ToolStore } from '@hookyard/store';
import type { FetchFn } from './http-call';
import { createOutboundGuard, type OutboundGuard } from './outbound';
import { createGrpcRepo } from './grpc/lazy-repo';
import { echoTool } from './local/echo';
import { jsExecutionTool } from './local/js-execution';
import { localFsTool } from './local/local-fs';
import { localShellTool } from './local/local-shell';
import { webhookTool } from './local/webhook';
import { LocalRepo, type LocalTool } from './local/local-repo';
import { printTool } from './local/print';
import { stateTools } from './local/state';
import { waitTool } from './local/wait';
import { McpProvider } from './mcp/mcp-provider';
import { MultiRepo } from './multi-repo';
import { OpenApiProvider } from './openapi/openapi-provider';
import { ProviderRepo } from './provider/provider-repo';
import { RemoteRepo } from './remote/remote-repo';
import type { ClosableToolRepo } from './types';

export interface CreateToolRepoOptions {
  settings: Settings;
  toolStore: ToolStore;
  logger: Logger;
  /**
   * Used by the remote, OpenAPI and MCP repos and the webhook tool; default:
   * the outbound guard's fetch (public addresses only, unless
   * HOOKS_OUTBOUND_ALLOW_NETS allows a range; no redirects).
   */
  fetch?: FetchFn;
  /**
   * Resolves the secret references of tool records (`{"secret":"env:NAME"}`
   * in headers, injected values, gRPC metadata) at call time; default: this
   * process's environment and mounted files.
   */
  secrets?: SecretResolver;
  /** Subject state: with it, the state_get/state_set/state_merge/state_delete tools are on. */
  states?: StateStore;
  /** The outbound guard (default: one built from HOOKS_OUTBOUND_ALLOW_NETS, closed with the repo). */
  guard?: OutboundGuard;
}

/** Longest a js_execution snippet may run: snippets take turns in one sandbox thread. */
const JS_EXECUTION_MAX_MS = 5000;

/**
 * The built-in tools this deployment's settings turn on: echo, print, wait,
 * webhook and js_execution always; the state_* tools over `states`; local_fs with HOOKS_LOCAL_FS_ROOT; local_shell with
 * HOOKS_LOCAL_SHELL_ENABLED (and a root to run in).
 */
export function localTools(options: CreateToolRepoOptions): LocalTool[] {
  const { settings, logger } = options;
  const tools: LocalTool[] = [echoTool, printTool, waitTool];
  if (options.states) tools.push(...stateTools(options.states));
  if (settings.localFsRoot) tools.push(localFsTool(settings.localFsRoot));
  if (settings.localShellEnabled) {
    if (settings.localFsRoot) {
      tools.push(localShellTool({ root: settings.localFsRoot, allow: settings.localShellAllow, timeoutMs: settings.toolTimeoutMs }));
    } else {
      logger.error('HOOKS_LOCAL_SHELL_ENABLED is set but HOOKS_LOCAL_FS_ROOT is not: local_shell stays off (it runs only inside the root)');
    }
  }
  tools.push(webhookTool({ allowHosts: settings.webhookAllowHosts, timeoutMs: settings.toolTimeoutMs, fetch: options.fetch, guard: options.guard }));
  tools.push(jsExecutionTool({ timeoutMs: Math.min(settings.toolTimeoutMs, JS_EXECUTION_MAX_MS), logger }));
  return tools;
}

/**
 * The deployment's composed repo: the local tools first (so a registration can
 * never shadow a built-in), then the registered HTTP services, then the
 * discovered ones (OpenAPI operations, MCP tools and gRPC unary methods, named
 * `<registration>__<operation>`). Allowlists are applied per run by the caller
 * (`AllowlistRepo` with `resolveAllowlist`). `close()` ends MCP connections,
 * the servers it spawned and gRPC channels: call it on shutdown.
 */
export function createToolRepo(options: CreateToolRepoOptions): ClosableToolRepo {
  const { settings, toolStore, logger } = options;
  const secrets = options.secrets ?? createSecretResolver({ scope: secretScopeOf(settings) });
  const guard = options.guard ?? createOutboundGuard({ allowNets: settings.outboundAllowNets });
  const fetchFn = options.fetch ?? guard.fetch;
  const local = new LocalRepo(localTools({ ...options, guard }));
  const remote = new RemoteRepo({ toolStore, logger, fetch: fetchFn, secrets });
  const discovered = new ProviderRepo({
    toolStore,
    logger,
    secrets,
    providers: [
      new OpenApiProvider({ logger, fetch: fetchFn, secrets, maxDocumentBytes: settings.openapiMaxBytes }),
      new McpProvider({ logger, stdioAllow: settings.mcpStdioAllow, secrets, fetch: fetchFn }),
    ],
  });
  const grpc = createGrpcRepo({ records: () => toolStore.listTools(), logger, secrets, guard });
  const repo = new MultiRepo([local, remote, discovered, grpc], logger);
  if (options.guard) return repo;
  const close = repo.close.bind(repo);
  repo.close = async () => {
    await close();
    await guard.close();
  };
  return repo;
}
