import type { Server } from '@modelcontextprotocol/sdk/server/index.js';
import type { RequestHandlerExtra } from '@modelcontextprotocol/sdk/shared/protocol.js';
import type { ServerNotification, ServerRequest, Task } from '@modelcontextprotocol/sdk/types.js';
import type { AgentClient, Logger, Settings } from '@hookyard/core';
import type { RunBus } from '@hookyard/bus';
import type { ToolRepo } from '@hookyard/tools';
import { isModelToolName, pageOf, visibleTools } from './mcp-catalogue';
import {
  InvalidParams,
  idempotencyKeyOf,
  mcpResult,
  progressMessage,
  runtimeAllowlists,
  submitErrorKind,
  waitForOutcome,
  type McpCalls,
  type McpCallResult,
} from './mcp-call';
import type { CallFollow } from './calls';
import { joinedView } from './call-view';
import { callerAsk } from './mcp-elicit';
import { mcpSdk } from './mcp-sdk';
import { runTaskStore, TASK_POLL_INTERVAL_MS, type RunTaskDeps } from './mcp-tasks';

/** What one session's MCP server runs on. */
export interface McpServerDeps extends RunTaskDeps {
  calls: McpCalls;
  tools: ToolRepo;
  settings: Pick<Settings, 'agentWaitMs' | 'agentProgressMs' | 'agentProgressMaxWaitMs'>;
  logger: Logger;
  /** Where an approval the agent's user answered (elicitation) publishes its woken run. */
  bus: Pick<RunBus, 'publish'>;
}

type Extra = RequestHandlerExtra<ServerRequest, ServerNotification>;

/** The server's name and version in `initialize`. */
export const MCP_SERVER_INFO = { name: 'hookyard', version: '0.1.0' };

const INSTRUCTIONS =
  "Hookyard's tools. Every tools/call is kept as a run before it starts; a call an approval rule gates waits for a person. " +
  'When a call answers that it still waits, make the same call again (same tool, same arguments) to get its outcome: ' +
  'while it is open, an identical call joins it, so the tool is never called twice and no second approval is asked for. ' +
  'A client that sends a progressToken gets progress notifications while the call waits, and its answer when it comes.';

/** A JSON-RPC error with a plain message (the SDK's McpError would prefix "MCP error <code>:" to it). */
function rpcError(code: number, message: string): Error {
  return Object.assign(new Error(message), { code });
}
const INVALID_PARAMS = -32602;

/** The agent the door authenticated for this very request (its token is re-read on every request). */
function agentOf(extra: Extra): AgentClient {
  const agent = extra.authInfo?.extra?.agent as AgentClient | undefined;
  // The door sets it on every request it hands the transport; none means a wiring bug, not a client's mistake.
  if (!agent) throw rpcError(-32603, 'no authenticated agent on this request');
  return agent;
}

function invalid<T>(read: () => T): T {
  try {
    return read();
  } catch (err) {
    if (err instanceof InvalidParams) throw rpcError(INVALID_PARAMS, err.message);
    throw err;
  }
}

/** Tasks: tools/call may ask for one; tasks/get, tasks/result, tasks/list and tasks/cancel answer from the runs. */
const TASKS_CAPABILITY = { list: {}, cancel: {}, requests: { tools: { call: {} } } };

/**
 * One session's MCP server (the SDK's low-level Server, so the door decides
 * paging and calls): `tools/list` and `tools/call` over the agent's visible
 * catalogue, decided per request by the one allowlist function, and MCP
 * tasks over the agent's runs. `sessionAgent` is the agent the session's
 * latest request authenticated as (the task requests read it).
 */
export function createMcpServer(deps: McpServerDeps, sessionAgent: () => AgentClient): Server {
  const { Server: SdkServer, types } = mcpSdk();
  const server = new SdkServer(MCP_SERVER_INFO, {
    capabilities: { tools: { listChanged: true }, tasks: TASKS_CAPABILITY },
    instructions: INSTRUCTIONS,
    taskStore: runTaskStore(deps, sessionAgent),
    defaultTaskPollInterval: TASK_POLL_INTERVAL_MS,
  });
  const visible = deps.calls.visible.bind(deps.calls);

  server.setRequestHandler(types.ListToolsRequestSchema, async (request, extra) => {
    const agent = agentOf(extra);
    const runtime = invalid(() => runtimeAllowlists(extra.requestInfo?.headers, request.params?._meta));
    const tools = await visibleTools(deps.tools, visible, agent, runtime);
    const page = pageOf(tools, request.params?.cursor);
    if (!page) throw rpcError(INVALID_PARAMS, 'invalid cursor: pass back the nextCursor of the previous tools/list answer unchanged');
    return page;
  });

  server.setRequestHandler(types.CallToolRequestSchema, async (request, extra): Promise<McpCallResult | { task: Task }> => {
    const agent = agentOf(extra);
    const { name } = request.params;
    const headers = extra.requestInfo?.headers;
    const meta = request.params._meta;
    const [fromHeader, fromMeta] = invalid(() => runtimeAllowlists(headers, meta));
    const key = invalid(() => idempotencyKeyOf(headers, meta));
    // Exactly what tools/list shows decides: a tool that does not exist and one the agent may not call get the same answer.
    const known = isModelToolName(name) && (await deps.tools.names()).includes(name);
    let allowed = known ? [name] : [];
    for (const list of [fromHeader, fromMeta]) if (list) allowed = deps.calls.visible(agent, list, allowed);
    if (!fromHeader && !fromMeta) allowed = deps.calls.visible(agent, null, allowed);
    if (allowed.length === 0) throw rpcError(INVALID_PARAMS, `Unknown tool: ${name}`);

    let kept: { id: string; joined: boolean; idempotencyKey: string; follow?: CallFollow };
    try {
      const traceparent = typeof headers?.traceparent === 'string' ? headers.traceparent : null;
      kept = await deps.calls.submit(
        agent,
        {
          tool: name,
          arguments: request.params.arguments ?? {},
          idempotencyKey: key,
          runtimeAllow: fromMeta ?? fromHeader,
          via: 'mcp',
          traceparent,
        },
        { follow: true },
      );
    } catch (err) {
      const e = submitErrorKind(err);
      // Allowed when listed a moment ago, refused now (HOOKS_TOOLS_ALLOW reloaded): the same answer as any unknown tool.
      if (e.kind === 'not_found') throw rpcError(INVALID_PARAMS, `Unknown tool: ${name}`);
      if (e.kind === 'bad_input') throw rpcError(INVALID_PARAMS, e.message);
      // The key names another call: the model can act on that, so it is a result, not a protocol error.
      if (e.kind === 'conflict') return { isError: true, content: [{ type: 'text', text: e.message }], _meta: {} };
      throw err;
    }

    // A new call's events since its keep: the wait starts from them; stopped however this ends.
    try {
      // A task was asked for: the call is kept, so its handle is the answer; tasks/get and tasks/result follow the run.
      if (request.params.task) {
        const task = await runTaskStore(deps, () => agent).getTask(kept.id);
        if (!task) throw rpcError(-32603, `call ${kept.id} was kept but cannot be read back`);
        return { task };
      }

      const token = extra._meta?.progressToken;
      let step = 0;
      // An approval whose rule names the caller as approver is asked of the agent's user, when the client can be asked.
      const ask = callerAsk(deps, server, agent, request.params.arguments ?? {}, extra.requestId);
      extra.signal.addEventListener('abort', () => ask.stop());
      const progress = (v: Parameters<typeof progressMessage>[0]) => {
        ask.seen(v);
        if (token === undefined) return;
        step += 1;
        extra
          .sendNotification({ method: 'notifications/progress', params: { progressToken: token, progress: step, message: progressMessage(v) } })
          .catch((err: unknown) => deps.logger.debug({ run: kept.id, err: String(err) }, 'mcp progress not sent'));
      };
      // A client that sent a progressToken is kept waiting through the approval, told every HOOKS_AGENT_PROGRESS_SECONDS.
      const heartbeat = token === undefined ? undefined : progress;
      // The run is kept: from here a dropped connection only ends the wait, and the same call finds the run again.
      let view = await waitForOutcome(deps, agent, kept.id, extra.signal, progress, heartbeat, kept.follow);
      // A person is answering at the client: the call waits for them, then for the outcome their answer brings.
      if (!view.done && (await ask.settled()) && !extra.signal.aborted) view = await waitForOutcome(deps, agent, kept.id, extra.signal, progress, heartbeat);
      ask.stop();
      return mcpResult(kept.joined ? joinedView(view) : view, kept.idempotencyKey);
    } finally {
      kept.follow?.stop();
    }
  });

  return server;
}
