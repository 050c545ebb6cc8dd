export { HookEvaluator, newTrace } from './hook-plan';
export type { HookContext, HookPlan, PlanDeps, PlanRun, PlanTrace } from './hook-plan';
export { hookAllowlist, notAllowed } from './allowlist';
export { answeredStep, approvalGate, decideFresh, policyCall, stepOf } from './approval-step';
export type { ApprovalStep, DeniedResult } from './approval-step';
export { actIds, checkAct, resumeStatus } from './door-checks';
export type { ActingRun } from './door-checks';
