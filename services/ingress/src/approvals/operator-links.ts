import {
  LINK_KEY_UNREADABLE,
  approvalLinks,
  toHookyardError,
  type ApprovalLinks,
  type Interaction,
  type Logger,
  type SecretResolver,
  type Settings,
} from '@hookyard/core';

export interface OperatorLinkDeps {
  settings: Pick<Settings, 'publicUrl' | 'approvalLinkSecret' | 'approvalLinkTtlMs'>;
  secrets: SecretResolver;
  logger: Logger;
}

/**
 * Fresh signed links of an open approval, for an operator to hand on (`links`
 * of `GET /api/interactions/{id}`; readers never get them), issued to
 * `issuer` (the token's label, e.g. `operator:e81d4306`): signed into the
 * links, so an answer through one names whom it was issued to. Null when links
 * are off (HOOKS_PUBLIC_URL, HOOKS_APPROVAL_LINK_SECRET), the interaction is
 * not an open approval, or the key cannot be read (logged).
 */
export async function operatorLinks(deps: OperatorLinkDeps, i: Interaction, now: number, issuer: string): Promise<ApprovalLinks | null> {
  const { publicUrl, approvalLinkSecret, approvalLinkTtlMs } = deps.settings;
  if (!publicUrl || !approvalLinkSecret || i.kind !== 'approval' || i.status !== 'open' || Date.parse(i.expires_at) <= now) return null;
  try {
    return approvalLinks(publicUrl, await deps.secrets.resolve(approvalLinkSecret), i, now, approvalLinkTtlMs, issuer);
  } catch (err) {
    deps.logger.error({ interaction: i.id, err: toHookyardError(err).message }, LINK_KEY_UNREADABLE);
    return null;
  }
}
