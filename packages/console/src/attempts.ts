/**
 * A run's history read as attempts, and why a run stands where it does: pure
 * functions over the API's run (no DOM, no fetch), so the story and the runs
 * list say the same thing and tests check it without a browser.
 */
import type { HttpExchange, Run, RunEvent } from './api';

/** One line of an attempt as the story shows it. */
export interface AttemptLine {
  at: string;
  /** The history event; `not_sent` for a start that never left (its `acted` line folded in). */
  event: string;
  detail?: string;
  http?: HttpExchange;
}

/** The lines of one attempt (attempt 0: before the first claim), with where its time went. */
export interface AttemptGroup {
  attempt: number;
  lines: AttemptLine[];
  /** The event that ended the attempt (or the last one, while it runs). */
  outcome: string;
  /** claimed → tool start (condition, policy, door contract), in ms; null without both. */
  beforeToolMs: number | null;
  /** tool start → tool end, in ms; null when the tool did not run (or has not ended). */
  toolMs: number | null;
  /** claimed → the attempt's end, in ms; null without both. */
  totalMs: number | null;
  /** The reply of the attempt's HTTP call, when its tool made one. */
  http?: HttpExchange;
  /** What makes two attempts "the same": events, outcome detail (times masked) and HTTP status. */
  signature: string;
}

/** A stretch of the story: one attempt, or attempts that ended the same way, shown as one expandable line. */
export type AttemptBlock = { kind: 'one'; group: AttemptGroup } | { kind: 'same'; from: number; to: number; groups: AttemptGroup[] };

/** Events that end an attempt (its tool end, when the tool ran). */
const ENDS = new Set(['succeeded', 'skipped', 'denied', 'cancelled', 'failed', 'retry_scheduled', 'parked', 'lapsed', 'released', 'outcome_lost']);

const ms = (a: string | undefined, b: string | undefined): number | null => {
  if (!a || !b) return null;
  const d = Date.parse(b) - Date.parse(a);
  return Number.isFinite(d) ? Math.max(0, d) : null;
};

/** Times and delays in a detail differ from attempt to attempt; they do not make two failures different. */
function maskDetail(detail: string | undefined): string {
  return (detail ?? '')
    .replace(/\d{4}-\d\d-\d\dT\d\d:\d\d:\d\d(\.\d+)?Z/g, '<time>')
    .replace(/\b\d+ ms\b/g, '<ms>')
    .replace(/\battempt \d+\b/g, 'attempt <n>');
}

/**
 * Folds the history's lines into per-attempt lines: an `acted` start followed
 * by its `not_sent` withdrawal (the call never left) reads as one line, so
 * the story never shows the tool as run.
 */
function foldLines(events: RunEvent[]): AttemptLine[] {
  const out: AttemptLine[] = [];
  for (const e of events) {
    const prev = out[out.length - 1];
    if (e.event === 'not_sent' && prev?.event === 'acted') {
      out[out.length - 1] = { at: e.at, event: 'not_sent', detail: e.detail };
      continue;
    }
    out.push({ at: e.at, event: e.event, ...(e.detail ? { detail: e.detail } : {}), ...(e.http ? { http: e.http } : {}) });
  }
  return out;
}

/** The history grouped by attempt, in order: a new group wherever the attempt number changes. */
export function groupAttempts(history: RunEvent[]): AttemptGroup[] {
  const groups: { attempt: number; events: RunEvent[] }[] = [];
  let current: { attempt: number; events: RunEvent[] } | undefined;
  for (const e of history) {
    if (current && current.attempt === e.attempt) current.events.push(e);
    else groups.push((current = { attempt: e.attempt, events: [e] }));
  }
  return groups.map(({ attempt, events }) => {
    const lines = foldLines(events);
    const claimed = lines.find((l) => l.event === 'claimed');
    const start = lines.find((l) => l.event === 'acted');
    const end = lines.find((l) => ENDS.has(l.event));
    const outcome = end ?? lines.at(-1);
    const http = end?.http ?? lines.find((l) => l.http)?.http;
    const signature = [lines.map((l) => l.event).join(','), maskDetail(outcome?.detail), http ? String(http.status) : ''].join('|');
    return {
      attempt,
      lines,
      outcome: outcome?.event ?? '',
      beforeToolMs: ms(claimed?.at, start?.at),
      toolMs: start && end ? ms(start.at, end.at) : null,
      totalMs: ms(claimed?.at, end?.at),
      ...(http ? { http } : {}),
      signature,
    };
  });
}

/**
 * Consecutive attempts (1 and up) that ended the same way become one block
 * ("attempts 2–6 failed the same way"), kept expandable; the others stay one
 * block each. Attempt 0 (the keep) is never folded.
 */
export function collapseAttempts(groups: AttemptGroup[]): AttemptBlock[] {
  const out: AttemptBlock[] = [];
  let run: AttemptGroup[] = [];
  const flush = () => {
    const [first] = run;
    const last = run.at(-1);
    if (first && last && run.length >= 2) out.push({ kind: 'same', from: first.attempt, to: last.attempt, groups: run });
    else if (first) out.push({ kind: 'one', group: first });
    run = [];
  };
  for (const g of groups) {
    const [first] = run;
    if (first && g.attempt >= 1 && first.attempt >= 1 && g.signature === first.signature) run.push(g);
    else {
      flush();
      run = [g];
    }
  }
  flush();
  return out;
}

/** A duration as people read it: 850 ms, 2.4 s, 3 min 5 s. */
export function duration(msValue: number): string {
  if (msValue < 1000) return `${Math.round(msValue)} ms`;
  if (msValue < 60_000) return `${(msValue / 1000).toFixed(msValue < 10_000 ? 1 : 0)} s`;
  const m = Math.floor(msValue / 60_000);
  const s = Math.round((msValue % 60_000) / 1000);
  return s ? `${m} min ${s} s` : `${m} min`;
}

/** What each error kind means for a retry, said once (the kind's retryability comes from the API). */
const KIND_WORDS: Record<string, string> = {
  bad_input: 'the input or the reply was refused as it is',
  unauthorized: 'the call was not allowed (credentials or an allowlist)',
  forbidden: 'the call was forbidden',
  not_found: 'what it needs does not exist',
  conflict: 'it conflicts with what is already there',
  cancelled: 'it was cancelled',
};

/**
 * Why a failed run was not tried again, in one sentence; null when the run
 * is not failed. A started tool holds the run (a retry could call it twice);
 * otherwise the error's kind decides (`retryable`, from the API); a retryable
 * kind that still failed used up its attempts.
 */
export function whyNotRetried(run: Pick<Run, 'status' | 'acted' | 'attempts' | 'error' | 'resumable'>): string | null {
  if (run.status !== 'failed') return null;
  if (run.error?.kind === 'outcome_unknown')
    return (
      'Held: its tool started and the attempt was interrupted, so the outcome is unknown and the tool may have acted. ' +
      'Check what the tool did and Resolve the run with what you found (or Retry it if calling the tool again is safe).'
    );
  if (run.error?.kind === 'operator_failed') return 'Resolved failed by an operator who checked what the tool did (see the history).';
  if (run.acted === 'start')
    return (
      'Not retried: the tool had been called (its start was recorded before the call), so the run is held rather than risk calling it twice. ' +
      'Retry it yourself if calling the tool again is safe.'
    );
  if (run.acted) return `Not retried: the hook had already committed a ${run.acted} on its interactions, which a second attempt would repeat.`;
  const kind = run.error?.kind ?? '';
  if (run.error && run.error.retryable === false)
    return `Not retried: ${kind} is a kind no retry can change${KIND_WORDS[kind] ? ` (${KIND_WORDS[kind]})` : ''}; fix the cause, then retry.`;
  if (run.error?.retryable)
    return `Not retried: it failed ${run.attempts} time${run.attempts === 1 ? '' : 's'}, the most attempts a run gets (HOOKS_RUN_MAX_ATTEMPTS).`;
  return null;
}

/** Shortens a message for a table cell; the full text goes in its title. */
export function shorten(text: string, max = 140): string {
  const one = text.replace(/\s+/g, ' ').trim();
  return one.length <= max ? one : `${one.slice(0, max - 1)}…`;
}

/** What a runs-list row says beside its status: the error, who denied it, what a parked run waits on. */
export interface RowReason {
  tone: 'error' | 'denied' | 'waiting' | 'none';
  /** The error kind, when there is one. */
  kind?: string;
  text: string;
  /** The whole text, for a title. */
  full: string;
}

const isRecord = (v: unknown): v is Record<string, unknown> => !!v && typeof v === 'object' && !Array.isArray(v);

/** The run's last history line of `event`. */
function lastLine(history: RunEvent[], event: string): RunEvent | undefined {
  return [...history].reverse().find((e) => e.event === event);
}

export function rowReason(run: Pick<Run, 'status' | 'error' | 'result' | 'history'>): RowReason {
  const history = run.history ?? [];
  if (run.status === 'denied') {
    // A denial's result: {message, rule, policy_version} from the policy, plus {interaction, by, via} from a person.
    const r: { message?: unknown; rule?: unknown; by?: unknown; via?: unknown } | null = isRecord(run.result) ? run.result : null;
    const by = typeof r?.by === 'string' ? r.by : null;
    const via = typeof r?.via === 'string' ? r.via : null;
    const rule = typeof r?.rule === 'string' ? r.rule : null;
    const policy = lastLine(history, 'approval policy')?.detail;
    const text = by ? `denied by ${by}${via ? ` via ${via}` : ''}` : rule ? `denied by rule ${rule}` : policy ? policy : 'denied';
    const full = [text, typeof r?.message === 'string' ? r.message : ''].filter(Boolean).join(': ');
    return { tone: 'denied', text, full };
  }
  if (run.status === 'parked') {
    const parked = lastLine(history, 'parked');
    const kind = /^parked on (\S+)/.exec(parked?.detail ?? '')?.[1];
    const asked = lastLine(history, 'approval requested');
    // The approval request belongs to this park when it came in the same attempt.
    if (kind === 'approval' || (!kind && asked)) {
      const rule = /^by (.+?) \(/.exec(asked?.detail ?? '')?.[1];
      const text = `awaiting approval${rule ? ` (rule ${rule})` : ''}`;
      return { tone: 'waiting', text, full: [text, parked?.detail].filter(Boolean).join(': ') };
    }
    const text = kind ? `awaiting ${kind}` : 'awaiting an interaction';
    return { tone: 'waiting', text, full: parked?.detail ?? text };
  }
  if (run.error) {
    const full = `${run.error.kind}: ${run.error.message}`;
    return { tone: 'error', kind: run.error.kind, text: shorten(run.error.message), full };
  }
  return { tone: 'none', text: '', full: '' };
}
