import { compileErrorLines, nameViolation, toHookyardError, type DedupeBinding } from '@hookyard/core';
import type { JqEngine } from '@hookyard/jq';
import type { HookStore } from '@hookyard/store';
import { createTopicCache } from './topic-cache';

/** How long a dedupe key value stays claimed when the binding names no horizon: 24 h. */
export const DEDUPE_HORIZON_DEFAULT_SECONDS = 86_400;
/** Bounds of `horizon_seconds`: one second to seven days (senders retry for 1 to 3 days). */
export const DEDUPE_HORIZON_MIN_SECONDS = 1;
export const DEDUPE_HORIZON_MAX_SECONDS = 7 * 86_400;
/** Longest dedupe expression kept. */
export const DEDUPE_EXPR_MAX_LENGTH = 4096;
/** Longest key value taken as a delivery id (as `Nats-Msg-Id`); a longer one is refused. */
export const DEDUPE_KEY_MAX_LENGTH = 256;

const FIELDS = new Set(['expr', 'horizon_seconds', 'topic']);

/**
 * Checks a `PUT /api/hooks/topics/{topic}/dedupe` body and compiles its
 * expression (a jq error is quoted under `expr`). Every refusal names its field.
 */
export async function validateDedupeBinding(
  topic: string,
  input: unknown,
  jq: Pick<JqEngine, 'check'>,
  now: Date,
): Promise<{ ok: true; binding: DedupeBinding } | { ok: false; errors: string[] }> {
  const errors: string[] = [];
  const topicMiss = nameViolation('topic', topic);
  if (topicMiss) errors.push(topicMiss);
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return { ok: false, errors: [...errors, `the dedupe key must be a JSON object {expr, horizon_seconds}, got ${JSON.stringify(input) ?? typeof input}`] };
  }
  const body = input as Record<string, unknown>;
  for (const name of Object.keys(body)) if (!FIELDS.has(name)) errors.push(`unknown field ${JSON.stringify(name)}`);
  if (body.topic !== undefined && body.topic !== topic) {
    errors.push(`topic in the body (${JSON.stringify(body.topic)}) differs from the topic in the path (${JSON.stringify(topic)})`);
  }

  const expr = body.expr;
  if (typeof expr !== 'string' || expr.trim() === '') {
    errors.push(`expr must be a jq expression over {headers, query, body}, got ${JSON.stringify(expr) ?? 'nothing'}`);
  } else if (expr.length > DEDUPE_EXPR_MAX_LENGTH) {
    errors.push(`expr is ${expr.length} characters, more than ${DEDUPE_EXPR_MAX_LENGTH}`);
  } else {
    try {
      await jq.check(expr);
    } catch (err) {
      const e = toHookyardError(err);
      if (e.kind !== 'bad_input') throw err;
      errors.push(...compileErrorLines(`expr ${JSON.stringify(expr)}`, e));
    }
  }

  const horizon = body.horizon_seconds ?? DEDUPE_HORIZON_DEFAULT_SECONDS;
  if (typeof horizon !== 'number' || !Number.isInteger(horizon) || horizon < DEDUPE_HORIZON_MIN_SECONDS || horizon > DEDUPE_HORIZON_MAX_SECONDS) {
    errors.push(
      `horizon_seconds must be a whole number from ${DEDUPE_HORIZON_MIN_SECONDS} to ${DEDUPE_HORIZON_MAX_SECONDS} (7 days), got ${JSON.stringify(body.horizon_seconds)}`,
    );
  }
  if (errors.length > 0) return { ok: false, errors };
  const at = now.toISOString();
  return { ok: true, binding: { topic, expr: expr as string, horizon_seconds: horizon as number, created_at: at, updated_at: at } };
}

/** What a dedupe expression sees. */
export interface DedupeInput {
  headers: Record<string, unknown>;
  query: Record<string, unknown>;
  body: unknown;
}

/**
 * A topic's dedupe verdict: `claim` null when the topic has no dedupe key or
 * the key yielded null, nothing, or ""; `refused` (nothing kept) when the
 * expression failed or yielded something that is not a string or number.
 */
export type DedupeVerdict = { ok: true; claim: { id: string; ttlMs: number } | null } | { ok: false; reason: string };

export interface DedupeStepDeps {
  hooks: Pick<HookStore, 'getDedupe'>;
  jq: Pick<JqEngine, 'run'>;
  /** How long a topic's binding (or its absence) is reused, as the verifier binding's (default 1000 ms). */
  cacheMs?: number;
  now?: () => number;
}

/**
 * The doors' dedupe key: the topic's binding briefly cached (a topic without
 * one costs a map lookup, and the input is built only for a topic that has
 * one), the expression run by the jq engine (which keeps its compiled form).
 * A binding that cannot be read throws: the door keeps nothing.
 */
export function createDedupeStep(deps: DedupeStepDeps): {
  keyOf(topic: string, input: () => DedupeInput): Promise<DedupeVerdict>;
  invalidate(topic: string): void;
} {
  const bindings = createTopicCache((topic) => deps.hooks.getDedupe(topic), deps);
  const lookup = bindings.get;

  return {
    async keyOf(topic, input) {
      const binding = await lookup(topic);
      if (!binding) return { ok: true, claim: null };
      const named = `dedupe key ${JSON.stringify(binding.expr)}`;
      let outputs: unknown[];
      try {
        outputs = await deps.jq.run(binding.expr, input());
      } catch (err) {
        const e = toHookyardError(err);
        if (e.kind !== 'bad_input') throw err;
        return { ok: false, reason: `${named} failed: ${e.message}` };
      }
      if (outputs.length > 1) return { ok: false, reason: `${named} yielded ${outputs.length} values (${clip(outputs)}); it must yield one string or number` };
      const value = outputs[0] ?? null;
      let id: string;
      if (value === null || value === '') return { ok: true, claim: null };
      if (typeof value === 'string') id = value;
      else if (typeof value === 'number' && Number.isFinite(value)) id = String(value);
      else return { ok: false, reason: `${named} yielded ${clip(value)}; it must yield a string or a number (null or "" keeps without dedupe)` };
      if (id.length > DEDUPE_KEY_MAX_LENGTH)
        return { ok: false, reason: `${named} yielded a string of ${id.length} characters, more than ${DEDUPE_KEY_MAX_LENGTH}` };
      return { ok: true, claim: { id, ttlMs: binding.horizon_seconds * 1000 } };
    },
    invalidate: bindings.invalidate,
  };
}

function clip(value: unknown): string {
  const text = JSON.stringify(value) ?? String(value);
  return text.length > 200 ? `${text.slice(0, 200)}…` : text;
}
