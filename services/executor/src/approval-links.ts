import {
  LINK_KEY_UNREADABLE,
  HOOKS_APPROVAL_REQUESTED_TOPIC,
  HookyardError,
  TOOL_EXTRA_APPROVE_URL,
  TOOL_EXTRA_DENY_URL,
  TOOL_EXTRA_LINKS_EXPIRE_AT,
  approvalLinks,
  toHookyardError,
} from '@hookyard/core';
import type { Logger, Run, SecretResolver, Settings } from '@hookyard/core';
import type { InteractionStore } from '@hookyard/store';

/** The links handed to one tool call, and the signatures a kept result or error must never show. */
export interface CallLinks {
  extras: Record<string, string>;
  signatures: string[];
}

export interface LinkDeps {
  settings: Pick<Settings, 'publicUrl' | 'approvalLinkSecret' | 'approvalLinkTtlMs'>;
  secrets: SecretResolver;
  interactions: Pick<InteractionStore, 'get'>;
  logger: Logger;
}

/**
 * The signed links of the approval a `hooks_approval_requested` run is about,
 * made now for its tool call's extras (`tai42/approve_url`,
 * `tai42/deny_url`, `tai42/links_expire_at`), issued to `hook:<the run's
 * hook>` (an answer through one names it): never kept in the run, so a
 * reader who sees the run's payload, input or result sees no link. Null for
 * any other run (one kept by any door but the platform's: an outside copy of
 * the event, even through a verified door, gets none), when links are off (HOOKS_PUBLIC_URL,
 * HOOKS_APPROVAL_LINK_SECRET), when the approval is no longer open, or when
 * the key cannot be read (logged: the approval can still be answered by API).
 */
export async function linksForCall(deps: LinkDeps, run: Run, now: number): Promise<CallLinks | null> {
  const { publicUrl, approvalLinkSecret, approvalLinkTtlMs } = deps.settings;
  if (run.topic !== HOOKS_APPROVAL_REQUESTED_TOPIC || run.door !== 'platform' || !publicUrl || !approvalLinkSecret) return null;
  const p = run.payload as { interaction?: unknown; run?: unknown } | null;
  if (!p || typeof p.interaction !== 'string') return null;
  const i = await deps.interactions.get(p.interaction);
  // Only the approval this event was fired for, while it can still be answered.
  if (!i || i.kind !== 'approval' || i.status !== 'open' || i.run !== p.run) return null;
  let key: Buffer;
  try {
    key = await deps.secrets.resolve(approvalLinkSecret);
  } catch (err) {
    deps.logger.error({ interaction: i.id, err: toHookyardError(err).message }, LINK_KEY_UNREADABLE);
    return null;
  }
  // Issued to the hook this run belongs to (the one that hands the links on), signed into them.
  const links = approvalLinks(publicUrl, key, i, now, approvalLinkTtlMs, `hook:${run.hook}`);
  const signatures = [links.approve_url, links.deny_url].map((u) => new URL(u).searchParams.get('sig')!);
  return {
    extras: { [TOOL_EXTRA_APPROVE_URL]: links.approve_url, [TOOL_EXTRA_DENY_URL]: links.deny_url, [TOOL_EXTRA_LINKS_EXPIRE_AT]: links.expires_at },
    signatures,
  };
}

const REDACTED = '[approval link signature removed]';

function scrub(text: string, signatures: readonly string[]): string {
  let out = text;
  for (const sig of signatures) out = out.split(sig).join(REDACTED);
  return out;
}

/**
 * A tool's result with the links' signatures cut out (a chat API often echoes
 * the message it posted): the result is kept in the run, which readers see.
 */
export function scrubResult(result: unknown, links: CallLinks | null): unknown {
  if (!links || result === undefined) return result;
  const json = JSON.stringify(result);
  if (json === undefined || !links.signatures.some((s) => json.includes(s))) return result;
  // base64url signatures need no JSON escaping, so they appear as they are in the JSON text.
  return JSON.parse(scrub(json, links.signatures)) as unknown;
}

/** A tool's error with the links' signatures cut out of its message (kept in the run as its error). */
export function scrubError(e: HookyardError, links: CallLinks | null): HookyardError {
  if (!links || !links.signatures.some((s) => e.message.includes(s))) return e;
  const copy = new HookyardError(e.kind, scrub(e.message, links.signatures), {
    cause: e.cause,
    details: e.details.map((d) => scrub(d, links.signatures)),
    notSent: e.notSent,
    outcomeUnknown: e.outcomeUnknown,
  });
  copy.stack = e.stack;
  return copy;
}
