import type { Request, Response, Router } from 'express';
import {
  SPAN_ATTR,
  ALLOWLIST_ENTRY_PATTERN,
  SpanKind,
  badInput,
  contextOfHeaders,
  endSpanWithError,
  internal,
  startSpan,
  toHookyardError,
  traceparentOf,
  tracingOn,
  withSpan,
  type AgentClient,
  type ErrorKind,
  type Settings,
} from '@hookyard/core';
import { AgentCalls, TOOLS_ALLOW_HEADER, toolsAllowEntries } from '../agent/calls';
import { parseCallsBody } from '../agent/shapes';
import { RUN_ID_HEADER, RUN_STATUS_HEADER, callAnswer, httpStatusOfCall, httpStatusOfOutcomes, runHeaders, type CallOutcome } from '../agent/shape-answers';
import { joinedView } from '../agent/call-view';
import { agentOf } from './auth';
import { callTool, getCall } from '@hookyard/api';
import { mount } from './declare';
import type { ApiContext } from './context';

/** The span of an HTTP call's keep (tracing on). */
export const CALL_SPAN = 'POST /api/calls';
/** The answer header naming the call's run, whatever the body's shape (as Hookyard-Run-Id; kept for clients that read it). */
export const CALL_ID_HEADER = 'Hookyard-Call-Id';

/**
 * The HTTP call API for agents that do not speak MCP: `POST /api/calls` keeps
 * the call as a run and waits (up to HOOKS_AGENT_WAIT_SECONDS, or less when
 * asked) for its outcome; `GET /api/calls/{id}` answers it later. Agent
 * tokens only. The body shapes are read in agent/shapes, answered in agent/shape-answers.
 */
export function callRoutes(router: Router, ctx: ApiContext): void {
  const opts = { validateAnswers: ctx.validateAnswers };
  const calls = new AgentCalls({
    settings: ctx.settings,
    stores: ctx.stores,
    bus: ctx.bus,
    clock: ctx.clock,
    logger: ctx.logger,
    ...(ctx.runEvents ? { runEvents: ctx.runEvents } : {}),
    ...(ctx.events ? { events: ctx.events } : {}),
  });

  mount(
    router,
    callTool,
    async (req, res) => {
      const agent = theAgent(res);
      // The agent's own flood bucket, shared with /mcp (HOOKS_AGENT_RATE, HOOKS_AGENT_BURST).
      const verdict = ctx.limitAgent ? await ctx.limitAgent(agent.name) : { ok: true as const };
      if (!verdict.ok) return void tooMany(res, agent.name, verdict.retryAfterSeconds);
      onlyQuery(req, ['wait_seconds']);
      const { calls: parsed, many } = parseCallsBody(req.body);
      // An array counts each of its calls against the agent's bucket.
      for (let i = 1; i < parsed.length; i++) {
        const more = ctx.limitAgent ? await ctx.limitAgent(agent.name) : { ok: true as const };
        if (!more.ok) return void tooMany(res, agent.name, more.retryAfterSeconds);
      }
      const bodyWait = parsed.length === 1 ? parsed[0]!.waitSeconds : undefined;
      if (bodyWait !== undefined && req.query.wait_seconds !== undefined) {
        throw badInput('wait_seconds is given both in the body and in the query; give it once');
      }
      const waitMs = waitMsOf(bodyWait !== undefined ? bodyWait : req.query.wait_seconds, ctx.settings);
      const headerKey = req.get('idempotency-key');
      if (headerKey !== undefined && many) {
        throw badInput(
          "the Idempotency-Key header keys one call; the calls of a message or an array are keyed by their own ids (idempotency_key in Hookyard's)",
        );
      }
      const only = parsed[0]!;
      if (headerKey !== undefined && only.idempotencyKey !== null && headerKey !== only.idempotencyKey) {
        const bodyKey = only.shape === 'hookyard' ? 'idempotency_key' : "the model's call id";
        throw badInput(`the Idempotency-Key header and ${bodyKey} differ; give one key (a model-shaped call's key is its id)`);
      }
      const runtimeAllow = runtimeAllowOf(req.get(TOOLS_ALLOW_HEADER));
      const signal = closedSignal(req, res);
      // Kept in order; a call not taken is answered as such (a model's: as its result message), the others still run.
      const kept: ({ id: string; joined: boolean } | { refused: { kind: ErrorKind; message: string } })[] = [];
      for (const call of parsed) {
        const request = {
          tool: call.tool,
          arguments: call.arguments as Record<string, unknown>,
          idempotencyKey: call.idempotencyKey ?? (many ? null : (headerKey ?? null)),
          runtimeAllow,
          via: 'http' as const,
        };
        try {
          kept.push(await tracedSubmit(req, agent.name, call.tool, (traceparent) => calls.submit(agent, { ...request, traceparent })));
        } catch (err) {
          const e = toHookyardError(err);
          // Hookyard's single body keeps its error answers; a model's call, and any call of an array, gets a result.
          if (e.kind === 'internal' || (!many && call.shape === 'hookyard')) throw err;
          kept.push({ refused: { kind: e.kind, message: e.message } });
        }
      }
      // The calls wait together, each up to the same bound.
      const outcomes: CallOutcome[] = await Promise.all(
        kept.map(async (k) => {
          if ('refused' in k) return k;
          const waited = await calls.wait(agent, k.id, waitMs, { signal });
          // Joined an identical open call: the answer says so (the field, and first in the sentence every shape carries).
          return { view: k.joined ? joinedView(waited) : waited };
        }),
      );
      if (res.writableEnded || res.destroyed) return;
      const headers = runHeaders(outcomes);
      const answers = parsed.map((call, i) => callAnswer(call, outcomes[i]!));
      res
        .status(httpStatusOfOutcomes(outcomes, many))
        .set(CALL_ID_HEADER, headers.id)
        .set(RUN_ID_HEADER, headers.id)
        .set(RUN_STATUS_HEADER, headers.status)
        .json(many ? answers : answers[0]);
    },
    opts,
  );

  mount(
    router,
    getCall,
    async (req, res) => {
      const agent = theAgent(res);
      onlyQuery(req, ['wait_seconds']);
      const waitMs = req.query.wait_seconds === undefined ? 0 : waitMsOf(req.query.wait_seconds, ctx.settings);
      const view = await calls.wait(agent, String(req.params.id), waitMs, { signal: closedSignal(req, res) });
      if (res.writableEnded || res.destroyed) return;
      res.status(httpStatusOfCall(view)).set(CALL_ID_HEADER, view.id).set(RUN_ID_HEADER, view.id).set(RUN_STATUS_HEADER, view.status).json(view);
    },
    opts,
  );
}

/**
 * How long to wait: HOOKS_AGENT_WAIT_SECONDS, or less when the request asks
 * (`wait_seconds`, 0 answers at once); asking for more is a 400 naming the
 * setting, so a caller learns the bound rather than a silent cut.
 */
export function waitMsOf(raw: unknown, settings: Pick<Settings, 'agentWaitMs'>): number {
  if (raw === undefined) return settings.agentWaitMs;
  const n = typeof raw === 'number' ? raw : typeof raw === 'string' && raw.trim() !== '' ? Number(raw) : NaN;
  if (!Number.isFinite(n) || n < 0) throw badInput(`wait_seconds must be a number of seconds >= 0, got ${JSON.stringify(raw)}`);
  const max = settings.agentWaitMs / 1000;
  if (n > max) throw badInput(`wait_seconds ${n} is more than this deployment waits (HOOKS_AGENT_WAIT_SECONDS ${max}); ask for ${max} or less`);
  return Math.round(n * 1000);
}

/** The runtime allowlist of the `Hookyard-Tools-Allow` header, or null without one; entries as the allowlist grammar writes them. */
export function runtimeAllowOf(header: string | undefined): string[] | null {
  if (header === undefined) return null;
  const entries = toolsAllowEntries(header);
  if (entries.length === 0) throw badInput(`the ${TOOLS_ALLOW_HEADER} header names no tool; give entries such as a,b,!c, or leave the header out`);
  const bad = entries.filter((e) => !ALLOWLIST_ENTRY_PATTERN.test(e));
  if (bad.length) {
    throw badInput(
      `the ${TOOLS_ALLOW_HEADER} header has entries that are not allowlist entries (*, a tool name, !name)`,
      bad.map((e) => `entry ${JSON.stringify(e)}`),
    );
  }
  return entries;
}

function onlyQuery(req: Request, known: readonly string[]): void {
  const unknown = Object.keys(req.query).filter((k) => !known.includes(k));
  if (unknown.length)
    throw badInput(`unknown query parameter${unknown.length > 1 ? 's' : ''} ${unknown.map((k) => `'${k}'`).join(', ')}; this route takes ${known.join(', ')}`);
}

/** Aborts when the client goes away before the answer: the call is kept and runs on; only the wait stops. */
function closedSignal(req: Request, res: Response): AbortSignal {
  const ac = new AbortController();
  res.on('close', () => {
    if (!res.writableFinished) ac.abort();
  });
  req.on('aborted', () => ac.abort());
  return ac.signal;
}

/**
 * The keep inside a `POST /api/calls` span (SERVER, continuing the request's
 * W3C traceparent) when tracing is on: the run keeps that span's traceparent,
 * so its attempts join the caller's trace. Tracing off: no span, none kept.
 */
async function tracedSubmit<T>(req: Request, agent: string, tool: string, submit: (traceparent: string | null) => Promise<T>): Promise<T> {
  if (!tracingOn()) return submit(null);
  const attributes = { 'http.request.method': 'POST', 'http.route': '/api/calls', 'hookyard.agent': agent, [SPAN_ATTR.tool]: tool };
  const span = startSpan(CALL_SPAN, { kind: SpanKind.SERVER, attributes }, contextOfHeaders(req.headers));
  try {
    const out = await withSpan(span, () => submit(traceparentOf(span)));
    span.end();
    return out;
  } catch (err) {
    endSpanWithError(span, err);
    throw err;
  }
}

/** The agent's bucket is empty. No error kind maps to 429, so the limit answers here, as the management limiter does. */
function tooMany(res: Response, agent: string, retryAfterSeconds: number): void {
  const retry = String(Math.max(1, Math.ceil(retryAfterSeconds)));
  res
    .status(429)
    .set('Retry-After', retry)
    .json({ error: { kind: 'unavailable', message: `too many calls from agent '${agent}'; retry in ${retry} s` } });
}

/** The agent of a request past requireAgent(). */
function theAgent(res: Response): AgentClient {
  const agent = agentOf(res);
  if (!agent) throw internal('an agent route ran without an agent token');
  return agent;
}
