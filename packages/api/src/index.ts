/**
 * The management API declared once: each route's method, path, role,
 * request and answer schemas (JSON Schema, built with TypeBox), audit action
 * and limits. The ingress mounts and validates from these declarations and
 * generates its OpenAPI document from them; the console and the CLI import
 * the types (no server code lives here).
 */
import type { RouteDecl } from './decl';
import { TEMPLATE_ROUTES } from './routes/templates';
// --- batch D: states, unrouted, agents, calls ---
import { AGENT_ROUTES } from './routes/agents';
import { CALL_ROUTES } from './routes/calls';
import { STATE_ROUTES } from './routes/states';
import { UNROUTED_ROUTES } from './routes/unrouted';
// --- end batch D ---

export { answer, route, type Answer, type AnswerOf, type ApiMethod, type ApiRole, type RequestOf, type RouteDecl } from './decl';
export { openApiDocument, openApiPath } from './openapi';
export { Created, Removed } from './shared';
export { JqTemplate, JqTemplateInput, TEMPLATE_ID_PATTERN, getTemplate, listTemplates, putTemplate, removeTemplate } from './routes/templates';
// --- batch D: states, unrouted, agents, calls ---
export {
  Agent,
  AgentIdentity,
  AgentInput,
  AgentWithToken,
  State,
  StateDeclaration,
  StateDeclarationInput,
  StateDeleted,
  StateInput,
  StatePage,
  StateRecord,
  StateSummary,
  StateWrite,
  UnroutedEvent,
  UnroutedTopic,
} from './routes/agents-shared';
export { createAgent, getAgent, listAgents, revokeAgent, rotateAgent } from './routes/agents';
export { AnthropicAnswer, CallView, OpenAiAnswer, callTool, getCall } from './routes/calls';
export {
  deleteState,
  deleteStateDeclaration,
  getState,
  getStateDeclaration,
  listStateDeclarations,
  listStates,
  putState,
  putStateDeclaration,
} from './routes/states';
export { dropUnrouted, listUnrouted, listUnroutedTopics, replayUnrouted } from './routes/unrouted';
/** Batch D's routes (spread into API_ROUTES). */
const BATCH_D_ROUTES = [...STATE_ROUTES, ...UNROUTED_ROUTES, ...AGENT_ROUTES, ...CALL_ROUTES];
// --- end batch D ---

/** Every declared route (the ingress mounts each; a test fails on a route that is in neither this list nor its shrinking list of undeclared ones). */
export const API_ROUTES: readonly RouteDecl[] = [...TEMPLATE_ROUTES, ...BATCH_D_ROUTES];

/** The declared route of `METHOD /path` (the path as registered under /api), if any. */
export function declaredRoute(method: string, path: string): RouteDecl | undefined {
  return API_ROUTES.find((d) => d.method === method && d.path === path);
}
