export { HookEvaluator, newTrace } from './hook-plan';
export type { HookContext, HookPlan, PlanDeps, PlanRun, PlanTrace } from './hook-plan';
export { hookAllowlist, notAllowed } from './allowlist';
export { answeredStep, decideFresh, policyCall, stepOf } from './approval-step';
export type { ApprovalStep, DeniedResult } from './approval-step';
