import type { HttpExchange, Logger, RemoteToolRecord, SubjectKey, ToolRetryPolicy } from '@hookyard/core';
import type { ApprovalDecision } from './approval/evaluate';

export type JsonSchema = Record<string, unknown>;

/** A tool as a model or an operator sees it. */
export interface ToolInfo {
  name: string;
  description: string;
  /** JSON Schema of the arguments (injected parameters already stripped). */
  parameters: JsonSchema;
  /** Which provider answers it (`local`, `http`, `openapi`, `mcp`, `grpc`). */
  provider: string;
  /** Retry policy the tool declares for failures after it started; none by default. */
  retry?: ToolRetryPolicy;
  /** The tool may be replayed after a crash with the same idempotency key. */
  crashResumable?: boolean;
}

/** The OpenAI function shape of a tool. */
export function openAiFunction(tool: ToolInfo): { type: 'function'; function: { name: string; description: string; parameters: JsonSchema } } {
  return { type: 'function', function: { name: tool.name, description: tool.description, parameters: tool.parameters } };
}

export interface ToolCallContext {
  runId: string;
  hook: string;
  /** The run's topic (the approval policy's `when` reads it). */
  topic?: string;
  attempt: number;
  /** Same for every attempt and replay of one run; sent as `Idempotency-Key` by remote tools. */
  idempotencyKey: string;
  /** Extras handed to the tool, including `tai42/idempotency_key`. */
  extras: Record<string, unknown>;
  /** The subject the run's hook rendered (the state tools' default subject); absent when it declares none. */
  subject?: SubjectKey | null;
  /** Aborted when the call's time bound passes or the process shuts down. */
  signal: AbortSignal;
  /**
   * The call's time bound in ms: the tool timeout in effect when the call
   * started (HOOKS_TOOL_TIMEOUT_SECONDS, live), set by the executor. A tool
   * with a bound of its own (webhook, local_shell, js_execution) reads it per
   * call; absent (a direct call), the tool's built-in default applies.
   */
  timeoutMs?: number;
  logger: Logger;
  /**
   * The approval gate's decision for this exact call (ApprovalRepo.decide);
   * without one the gate decides on the deployment's policy itself.
   */
  approval?: ApprovalDecision;
  /**
   * Told the reply of every HTTP call the tool makes (remote protocols,
   * OpenAPI operations, webhook): status, redacted headers, a body excerpt.
   * The executor keeps the last one with the attempt's history line.
   */
  onHttp?: (exchange: HttpExchange) => void;
  /**
   * Told every secret value the call uses (each reference resolved for it,
   * and a literal under a credential-looking name), before anything is sent:
   * the executor cuts them from the result, error and reply it keeps.
   */
  onSecret?: (value: string) => void;
}

/**
 * One interface, several providers. A provider answers for a set of names.
 * Errors thrown are HookyardErrors whose kind says whether a retry can help.
 */
export interface ToolRepo {
  /** Runs a call. */
  exec(name: string, args: Record<string, unknown>, ctx: ToolCallContext): Promise<unknown>;
  /** The names this repo answers for. */
  names(): Promise<string[]>;
  /** The JSON Schema of one tool's arguments; undefined when the repo does not know the name. */
  schema(name: string): Promise<JsonSchema | undefined>;
  /**
   * The tools behind one provider name: one for a plain tool, several for a
   * service that serves many operations. Empty when the repo does not know it.
   */
  tools(providerName: string): Promise<ToolInfo[]>;
  /**
   * Discovers a registration of a service that provides tools (openapi, mcp,
   * grpc) now, whether or not it is stored yet: the names of the tools it
   * would list, or undefined when this repo does not serve the record's kind.
   * Throws what went wrong (unreachable, an HTTP status, not OpenAPI, too large).
   */
  discoverRecord?(record: RemoteToolRecord): Promise<string[] | undefined>;
  /** Releases connections and child processes the repo holds; absent when it holds none. */
  close?(): Promise<void>;
}

/** A repo that holds connections or child processes: close it on shutdown. */
export type ClosableToolRepo = ToolRepo & { close(): Promise<void> };
