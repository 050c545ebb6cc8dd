/**
 * The management API declared once: each route's method, path, role,
 * request and answer schemas (JSON Schema, built with TypeBox), audit action
 * and limits. The ingress mounts and validates from these declarations and
 * generates its OpenAPI document from them; the console and the CLI import
 * the types (no server code lives here).
 */
import type { RouteDecl } from './decl';
import { TEMPLATE_ROUTES } from './routes/templates';
// --- batch B: runs & observation ---
import { RUN_ROUTES } from './routes/runs';
import { OBSERVE_ROUTES } from './routes/observe';
// --- end batch B ---

export { answer, route, type Answer, type AnswerOf, type ApiMethod, type ApiRole, type RequestOf, type RouteDecl } from './decl';
export { openApiDocument, openApiPath } from './openapi';
export { Created, Removed } from './shared';
export { JqTemplate, JqTemplateInput, TEMPLATE_ID_PATTERN, getTemplate, listTemplates, putTemplate, removeTemplate } from './routes/templates';

// --- batch B: runs & observation ---
export { Attempt, BulkAnswer, BulkRequest, Nullable, OneOf, Run, RunEvent, RunFilter, RunPage, type RunEventData } from './routes/runs-shared';
export {
  FailureGroup,
  FailureGroups,
  RunCounts,
  ToolCalledAgain,
  countRuns,
  discardRun,
  discardRuns,
  getRun,
  listFailureGroups,
  listRuns,
  replayRun,
  retryRun,
  retryRuns,
} from './routes/runs';
export { AuditEntry, Delivery, StatsSeries, getDelivery, listAudit, runEvents, statsSeries, whoami } from './routes/observe';
// --- end batch B ---

/** Every declared route (the ingress mounts each; a test fails on a route that is in neither this list nor its shrinking list of undeclared ones). */
export const API_ROUTES: readonly RouteDecl[] = [
  ...TEMPLATE_ROUTES,
  // --- batch B ---
  ...RUN_ROUTES,
  ...OBSERVE_ROUTES,
  // --- end batch B ---
];

/** The declared route of `METHOD /path` (the path as registered under /api), if any. */
export function declaredRoute(method: string, path: string): RouteDecl | undefined {
  return API_ROUTES.find((d) => d.method === method && d.path === path);
}
