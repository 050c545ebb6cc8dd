/**
 * claim_planned's ARGV after the run's partition tag and id, in order: the
 * store builds them by name and the script names them once (one `unpack` into
 * locals in lua/claim_planned.lua; a test holds the two lists equal). Positional,
 * not one JSON document: the payload text (up to 32 KiB) is compared byte for
 * byte as sent, with no encoding on either side.
 */
export const PLANNED_CLAIM_ARGS = [
  'owner',
  'lease_ms',
  'now',
  'claim_detail',
  'planned_revision',
  'plan',
  'value',
  'resumable',
  'plan_detail',
  'note_event',
  'note_detail',
  'payload',
  'policy_version',
  'topic',
  'nonce',
] as const;

export type PlannedClaimArgs = Record<(typeof PLANNED_CLAIM_ARGS)[number], string | number>;

/** The arguments in the order the script reads them. */
export function plannedClaimArgv(args: PlannedClaimArgs): Array<string | number> {
  return PLANNED_CLAIM_ARGS.map((name) => args[name]);
}
