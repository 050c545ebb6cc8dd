/** The approval decision lives in @hookyard/plan, beside the dry run that previews it; the executor's steps import it from here. */
export { answeredStep, approvalGate, decideFresh, policyCall } from '@hookyard/plan';
export type { ApprovalStep, DeniedResult } from '@hookyard/plan';
