/**
 * The management API declared once: each route's method, path, role,
 * request and answer schemas (JSON Schema, built with TypeBox), audit action
 * and limits. The ingress mounts and validates from these declarations and
 * generates its OpenAPI document from them; the console and the CLI import
 * the types (no server code lives here).
 */
import type { RouteDecl } from './decl';
import { TEMPLATE_ROUTES } from './routes/templates';
// --- batch A: hooks & topic config ---
import { HOOK_ROUTES } from './routes/hooks';
import { TOPIC_ROUTES } from './routes/topics';
import { TRIGGER_LINK_ROUTES } from './routes/trigger-links';
// --- end batch A ---

export { answer, route, type Answer, type AnswerOf, type ApiMethod, type ApiRole, type RequestOf, type RouteDecl } from './decl';
export { openApiDocument, openApiPath } from './openapi';
export { Created, Removed } from './shared';
export { JqTemplate, JqTemplateInput, TEMPLATE_ID_PATTERN, getTemplate, listTemplates, putTemplate, removeTemplate } from './routes/templates';
// --- batch A: hooks & topic config ---
export { EXPRESSIONS, POLICY_WHEN, type ExpressionAnnotation } from './expressions';
export {
  ApprovalDecision,
  ApprovalRule,
  Dedupe,
  DedupeInput,
  ErrorInfo,
  Hook,
  HookInput,
  JqField,
  Name,
  TriggerLink,
  VerifierBinding,
  VerifierInput,
} from './routes/hooks-shared';
export { DryRun, DryRunInput, dryRunHook, getHook, hookSchema, listHooks, putHook, removeHook } from './routes/hooks';
export { getDedupe, getVerifier, putDedupe, putVerifier, removeDedupe, removeVerifier } from './routes/topics';
export { TRIGGER_LABEL_MAX, TriggerLinkCreated, TriggerLinkInput, createTriggerLink, listTriggerLinks, revokeTriggerLink } from './routes/trigger-links';
// --- end batch A ---

/** Every declared route (the ingress mounts each; a test fails on a route that is in neither this list nor its shrinking list of undeclared ones). */
export const API_ROUTES: readonly RouteDecl[] = [
  ...TEMPLATE_ROUTES,
  // --- batch A: hooks & topic config ---
  ...HOOK_ROUTES,
  ...TOPIC_ROUTES,
  ...TRIGGER_LINK_ROUTES,
  // --- end batch A ---
];

/** The declared route of `METHOD /path` (the path as registered under /api), if any. */
export function declaredRoute(method: string, path: string): RouteDecl | undefined {
  return API_ROUTES.find((d) => d.method === method && d.path === path);
}
