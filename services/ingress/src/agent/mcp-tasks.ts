import type { TaskStore } from '@modelcontextprotocol/sdk/experimental/tasks/interfaces.js';
import type { Result, Task } from '@modelcontextprotocol/sdk/types.js';
import { agentHookName, type AgentCallPayload, type AgentClient, type Clock, type HookMetrics, type Logger, type Run } from '@hookyard/core';
import { announceRun, type RunEventSink } from '@hookyard/bus';
import type { Stores } from '@hookyard/store';
import type { CallView } from './call-view';
import { mcpResult, progressMessage, type McpCalls } from './mcp-call';

/**
 * MCP tasks over kept runs: a task is an agent's call, its id the run's id.
 * Nothing is held in memory, so a task outlives the session that created it
 * and an ingress restart: `tasks/get` reads the run (and its approval), a
 * client that reconnects with its agent's token finds its tasks again. A
 * task is visible to the agent whose call it is, never another.
 */

/** What the task store reads and writes. */
export interface RunTaskDeps {
  calls: McpCalls;
  stores: Pick<Stores, 'runs' | 'interactions'>;
  clock: Clock;
  logger: Logger;
  metrics?: Pick<HookMetrics, 'cancelled'>;
  events?: RunEventSink;
}

/** How often a client should ask again (ms): an approval is answered by a person, so seconds are fine. */
export const TASK_POLL_INTERVAL_MS = 1000;
/** Tasks per `tasks/list` page. */
const TASK_PAGE_SIZE = 50;

/** A JSON-RPC error with a plain message (-32602 unless told). */
function rpcError(message: string, code = -32602): Error {
  return Object.assign(new Error(message), { code });
}

/** The MCP task status of a call's view: working until its outcome; a parked call is working, with the approval named. */
export function taskStatusOf(v: CallView): Pick<Task, 'status' | 'statusMessage'> {
  if (!v.done) return { status: 'working', statusMessage: progressMessage(v) };
  if (v.status === 'succeeded') return { status: 'completed', statusMessage: v.sentence };
  if (v.status === 'cancelled') return { status: 'cancelled', statusMessage: v.sentence };
  return { status: 'failed', statusMessage: v.sentence };
}

function taskOf(run: Run, v: CallView): Task {
  return { taskId: run.id, ...taskStatusOf(v), ttl: null, createdAt: run.created_at, lastUpdatedAt: run.updated_at, pollInterval: TASK_POLL_INTERVAL_MS };
}

/**
 * The SDK's TaskStore for one session, answering for the agent that session
 * belongs to (`agentOf`: the agent its latest request authenticated as).
 * Tasks are created by tools/call itself (the call is kept, then its task
 * answered), so `createTask` and `storeTaskResult` are never the way in.
 */
export function runTaskStore(deps: RunTaskDeps, agentOf: () => AgentClient): TaskStore {
  /** The run and its view, or null when it is not this agent's call (one answer for "none" and "someone else's"). */
  async function own(id: string): Promise<{ run: Run; view: CallView } | null> {
    const agent = agentOf();
    let view: CallView;
    try {
      view = await deps.calls.view(agent, id);
    } catch {
      return null;
    }
    const run = await deps.stores.runs.get(id);
    return run ? { run, view } : null;
  }

  return {
    async createTask() {
      throw rpcError('a task is created by tools/call with params.task, not on its own', -32601);
    },
    async getTask(taskId) {
      const found = await own(taskId);
      return found ? taskOf(found.run, found.view) : null;
    },
    async storeTaskResult() {
      throw rpcError("a task's result is its run's outcome: the executor writes it", -32601);
    },
    async getTaskResult(taskId): Promise<Result> {
      const found = await own(taskId);
      if (!found) throw rpcError(`Task not found: ${taskId}`);
      const key = (found.run.payload as Partial<AgentCallPayload> | null)?.idempotency_key ?? '';
      return mcpResult(found.view, key);
    },
    async updateTaskStatus(taskId, status) {
      // The SDK asks for `cancelled` on tasks/cancel; no other status is the client's to set.
      if (status !== 'cancelled') throw rpcError(`a task's status follows its run; '${status}' cannot be set`);
      await cancel(deps, agentOf(), taskId);
    },
    async listTasks(cursor) {
      const agent = agentOf();
      let page;
      try {
        page = await deps.stores.runs.list({ hook: agentHookName(agent.name) }, TASK_PAGE_SIZE, cursor ?? null);
      } catch {
        throw rpcError('invalid cursor: pass back the nextCursor of the previous tasks/list answer unchanged');
      }
      const tasks: Task[] = [];
      // The hook slot names the agent by name: calls of an earlier agent of that name are not this one's tasks.
      for (const run of page.runs) if (deps.calls.owns(agent, run)) tasks.push(taskOf(run, await deps.calls.view(agent, run.id)));
      return page.nextCursor ? { tasks, nextCursor: page.nextCursor } : { tasks };
    },
  };
}

/**
 * tasks/cancel: the call's open approval is cancelled (the run ends
 * `cancelled`, recorded as answered by `agent:<name>`). A call that is not
 * waiting for approval cannot be cancelled: a tool already running is not
 * interrupted, and one that has its outcome keeps it.
 */
async function cancel(deps: RunTaskDeps, agent: AgentClient, id: string): Promise<void> {
  const view = await deps.calls.view(agent, id).catch(() => null);
  if (!view) throw rpcError(`Task not found: ${id}`);
  const run = await deps.stores.runs.get(id);
  if (!run || run.status !== 'parked' || !run.interaction) {
    throw rpcError(`call ${id} is ${view.status}: only a call waiting for approval can be cancelled (a running tool is not interrupted)`);
  }
  const by = `agent:${agent.name}`;
  // ResolutionVia has no agent door of its own: `api` (a request through Hookyard's own API), with `by` naming the agent.
  const out = await deps.stores.interactions.resolve(
    run.interaction,
    { status: 'cancelled', by, via: 'api', reason: 'the agent cancelled its MCP task' },
    deps.clock.now(),
  );
  deps.logger.info({ interaction: run.interaction, run: id, by }, 'approval cancelled by the agent (MCP tasks/cancel)');
  if (out.run?.status === 'cancelled') deps.metrics?.cancelled.inc({ hook: out.run.hook });
  if (out.run) announceRun(deps.events, out.run, out.run.status === 'cancelled' ? 'finished' : 'woken', deps.logger);
}
