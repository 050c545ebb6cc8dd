/**
 * The hook plan lives in @hookyard/plan, so the ingress's dry run previews
 * exactly what a run does; the executor's steps import it from here.
 */
export { HookEvaluator, hookAllowlist, notAllowed } from '@hookyard/plan';
export type { HookContext, HookPlan, PlanDeps } from '@hookyard/plan';
export { TOOL_EXTRA_SUBJECT } from '@hookyard/core';
export type { DoorAct } from '@hookyard/core';
