import type { Interaction, InteractionKind, InteractionStatus, KeptOutcome, ResolutionVia, SubjectKey } from '@hookyard/core';
import type { RunFields } from './run-hash';

/**
 * An interaction's hash fields, all strings: id, kind, run, hook, topic, tool,
 * args_hash, rule, message ('' for none), policy_version, answer_hooks (JSON list or ''), approver ('caller' or ''), subject (JSON or ''), subject_text (its
 * index key part), on_timeout, created, expires, status, res_by, res_via,
 * res_at, res_reason, res_payload (JSON), res_extras (JSON or ''), outcome (JSON, `at` in ms, or ''),
 * taken_by, taken_at. Times are epoch ms.
 */
const iso = (ms: string | undefined): string => (ms ? new Date(Number(ms)).toISOString() : '');
const orNull = (s: string | undefined): string | null => (s ? s : null);

export function fieldsToInteraction(f: RunFields): Interaction | null {
  if (!f.id) return null;
  const stored = f.outcome ? (JSON.parse(f.outcome) as Omit<KeptOutcome, 'at'> & { at: number }) : null;
  return {
    id: f.id,
    kind: f.kind as InteractionKind,
    run: f.run ?? '',
    hook: f.hook ?? '',
    topic: f.topic ?? '',
    tool: f.tool ?? '',
    args_hash: f.args_hash ?? '',
    rule: orNull(f.rule),
    message: orNull(f.message),
    policy_version: f.policy_version ? Number(f.policy_version) : null,
    answer_hooks: f.answer_hooks ? (JSON.parse(f.answer_hooks) as string[]) : [],
    approver: f.approver === 'caller' ? 'caller' : null,
    subject: f.subject ? (JSON.parse(f.subject) as SubjectKey) : null,
    on_timeout: orNull(f.on_timeout),
    created_at: iso(f.created),
    expires_at: iso(f.expires),
    status: f.status as InteractionStatus,
    resolution: f.res_at
      ? {
          by: f.res_by ?? '',
          via: (f.res_via ?? 'api') as ResolutionVia,
          at: iso(f.res_at),
          reason: f.res_reason ?? '',
          payload: f.res_payload ? (JSON.parse(f.res_payload) as unknown) : null,
          extras: f.res_extras ? (JSON.parse(f.res_extras) as Record<string, unknown>) : null,
        }
      : null,
    outcome: stored ? { run: stored.run, status: stored.status, result: stored.result, at: new Date(stored.at).toISOString() } : null,
    taken: f.taken_at ? { by: f.taken_by ?? '', at: iso(f.taken_at) } : null,
  };
}
