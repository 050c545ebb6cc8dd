import { createHash, randomFillSync } from 'node:crypto';

/**
 * An interaction is what a parked run waits on: an `approval` (made by the
 * approval policy) or a `wait` (made by the built-in `wait` tool). It is
 * resolved once; a resumed one may keep its run's outcome for a later `take`.
 */
export const INTERACTION_KINDS = ['approval', 'wait'] as const;
export type InteractionKind = (typeof INTERACTION_KINDS)[number];

export const INTERACTION_STATUSES = ['open', 'approved', 'denied', 'resumed', 'cancelled', 'expired', 'taken'] as const;
export type InteractionStatus = (typeof INTERACTION_STATUSES)[number];

/** The statuses a resolution moves an open interaction to (`taken` follows a resume, see `take`). */
export type ResolvedStatus = Exclude<InteractionStatus, 'open' | 'taken'>;

/** How a resolution arrived. */
export const RESOLUTION_VIAS = ['api', 'link', 'hook', 'expiry', 'elicitation'] as const;
export type ResolutionVia = (typeof RESOLUTION_VIAS)[number];

/** The key of the state a hook's subject names: same scope, kind and key means the same subject. */
export interface SubjectKey {
  scope: string;
  kind: string;
  key: string;
}

export interface Resolution {
  /** Who answered: `operator:<token name>`, `run:<id>` (a hook's door contract), `agent:<name>:user` (elicitation), `expiry`. */
  by: string;
  via: ResolutionVia;
  at: string;
  reason: string;
  payload: unknown;
  /** Extras the answering run handed on (its `extras_expr`); merged into the woken run's extras. */
  extras: Record<string, unknown> | null;
}

/** What a resumed run ended with, kept on its interaction until a later run takes it. */
export interface KeptOutcome {
  run: string;
  status: string;
  result: unknown;
  at: string;
}

export interface Interaction {
  id: string;
  kind: InteractionKind;
  /** The parked run. */
  run: string;
  hook: string;
  topic: string;
  tool: string;
  /** SHA-256 (hex) of the canonical JSON of the exact arguments (`argsHash`). */
  args_hash: string;
  /** The approval rule that asked for it (null for a `wait`). */
  rule: string | null;
  /** approval: the rule's `message`, for the approver (null when the rule has none, and for a `wait`). */
  message: string | null;
  policy_version: number | null;
  /** approval: the hooks whose door contract may answer it (the rule's `answer_hooks`); a `wait` may be answered by any hook. */
  answer_hooks: string[];
  subject: SubjectKey | null;
  /** approval: `caller` when the agent's own user may answer it through MCP elicitation (the rule's `approver`), else null. */
  approver: 'caller' | null;
  /** What expiry means for the run (`wait`: fail | succeed; `approval`: deny | allow). */
  on_timeout: string | null;
  created_at: string;
  expires_at: string;
  status: InteractionStatus;
  resolution: Resolution | null;
  outcome: KeptOutcome | null;
  /** Who took the kept outcome, and when (status `taken`). */
  taken: { by: string; at: string } | null;
}

/**
 * An interaction id: 10 base36 chars of milliseconds (ids sort by creation),
 * 32 hex chars of fresh randomness (128 bits: an id cannot be guessed, so a
 * Slack button may carry it), then the store partition in 2 base36 chars.
 */
export function newInteractionId(now: number, partition: number): string {
  const random = Buffer.allocUnsafe(16);
  randomFillSync(random);
  return now.toString(36).padStart(10, '0') + random.toString('hex') + partition.toString(36).padStart(2, '0');
}

export const INTERACTION_ID_PATTERN = /^[0-9a-z]{10}[0-9a-f]{32}[0-9a-z]{2}$/;

/** JSON with object keys sorted at every depth (arrays keep their order); `undefined` members dropped. */
export function canonicalJson(value: unknown): string {
  if (value === null || typeof value !== 'object') return JSON.stringify(value ?? null) ?? 'null';
  if (Array.isArray(value)) return `[${value.map((v) => canonicalJson(v === undefined ? null : v)).join(',')}]`;
  const obj = value as Record<string, unknown>;
  const keys = Object.keys(obj)
    .filter((k) => obj[k] !== undefined)
    .sort();
  return `{${keys.map((k) => `${JSON.stringify(k)}:${canonicalJson(obj[k])}`).join(',')}}`;
}

/** SHA-256 (hex) of the canonical JSON of a call's arguments: what an interaction is bound to. */
export function argsHash(args: unknown): string {
  return createHash('sha256').update(canonicalJson(args)).digest('hex');
}
