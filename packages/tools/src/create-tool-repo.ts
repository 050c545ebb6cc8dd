import { createSecretResolver, secretScopeOf, type Logger, type SecretResolver, type Settings, type StateStore, type ToolStore } from '@hookyard/core';
import type { FetchFn } from './http-call';
import { createOutboundGuard, createRefusingGuard, type OutboundGuard } from './outbound';
import { CatalogueRepo } from './discovery/catalogue-repo';
import { discoveryRecorder } from './discovery/recorder';
import type { DiscoveryRequest } from './discovery/wire';
import { createGrpcProvider } from './grpc/lazy-provider';
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
  /** Keep each discovery's outcome in the tool store, where the API reads it (default true). */
  recordDiscovery?: boolean;
}

/** Longest a js_execution snippet may run, whatever the tool timeout: snippets take turns in one sandbox thread. */
const JS_EXECUTION_MAX_MS = 5000;

/**
 * The built-in tools this deployment's settings turn on: echo, print, wait,
 * webhook and js_execution always; the state_* tools over `states`; local_fs with HOOKS_LOCAL_FS_ROOT; local_shell with
 * HOOKS_LOCAL_SHELL_ENABLED (and a root to run in). The tool timeout given to
 * webhook, local_shell and js_execution here applies only to a call whose
 * context carries none: the executor hands every call the live one.
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
  tools.push(jsExecutionTool({ timeoutMs: settings.toolTimeoutMs, maxTimeoutMs: JS_EXECUTION_MAX_MS, logger }));
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
  const onDiscovery = options.recordDiscovery === false ? undefined : discoveryRecorder(toolStore, logger);
  const discovered = new ProviderRepo({
    toolStore,
    logger,
    secrets,
    providers: [
      new OpenApiProvider({ logger, fetch: fetchFn, secrets, maxDocumentBytes: settings.openapiMaxBytes, onDiscovery }),
      new McpProvider({ logger, stdioAllow: settings.mcpStdioAllow, secrets, fetch: fetchFn, onDiscovery }),
      createGrpcProvider({ logger, secrets, guard, onDiscovery }),
    ],
  });
  const repo = new MultiRepo([local, remote, discovered], logger);
  if (options.guard) return repo;
  const close = repo.close.bind(repo);
  repo.close = async () => {
    await close();
    await guard.close();
  };
  return repo;
}

export interface CatalogueToolRepoOptions {
  settings: Settings;
  toolStore: ToolStore;
  logger: Logger;
  /** Sends a discovery request to an executor (the bus's DiscoveryRequester.ask). */
  ask: (request: DiscoveryRequest, timeoutMs: number) => Promise<unknown>;
  /** How long one catalogue answer is reused (default 1000 ms). */
  cacheMs?: number;
  /** Subject state: with it, the state_* tools are described (as on the executors). */
  states?: StateStore;
}

/** Why the ingress's guard refuses everything. */
const INGRESS_REFUSAL = 'this process describes tools but never reaches them: the executors call tools and discover services';

/**
 * The ingress's repo: the local tools (described, never run here) and every
 * registration as the executors describe it (CatalogueRepo). It holds no
 * provider that dials a service or starts an MCP stdio server, and its
 * outbound guard refuses every address, so answering the management API never
 * reaches a registered service.
 */
export function createCatalogueToolRepo(options: CatalogueToolRepoOptions): ClosableToolRepo {
  const { settings, toolStore, logger } = options;
  const guard = createRefusingGuard(INGRESS_REFUSAL);
  const local = new LocalRepo(localTools({ settings, toolStore, logger, guard, states: options.states }));
  const catalogue = new CatalogueRepo({ ask: options.ask, timeoutMs: settings.discoveryTimeoutMs, toolStore, logger, cacheMs: options.cacheMs });
  return new MultiRepo([local, catalogue], logger);
}
