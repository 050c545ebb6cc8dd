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
// --- batch C: approvals, tools, settings ---
import { INTERACTION_ROUTES } from './routes/interactions';
import { POLICY_ROUTES } from './routes/policy';
import { SETTINGS_ROUTES } from './routes/settings';
import { TOOL_ROUTES } from './routes/tools';
// --- end batch C ---
// --- batch D: states, unrouted, agents, calls ---
import { AGENT_ROUTES } from './routes/agents';
import { CALL_ROUTES } from './routes/calls';
import { STATE_ROUTES } from './routes/states';
import { UNROUTED_ROUTES } from './routes/unrouted';
// --- end batch D ---
// --- batch B: runs & observation ---
import { RUN_ROUTES } from './routes/runs';
import { OBSERVE_ROUTES } from './routes/observe';
// --- end batch B ---

export { answer, bare, route, type Answer, type AnswerOf, type ApiMethod, type ApiRole, type RequestOf, type RouteDecl } from './decl';
export { openApiDocument, openApiPath } from './openapi';
export { ApiError, ERROR_RESPONSES, SKELETON } from './skeleton';
export { ConsoleSso, DoorAccepted, DoorError, DoorRejected, SERVICE_ROUTES, type ConsoleSsoConfig } from './routes/service';
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

// --- batch C: approvals, tools, settings ---
export {
  APPROVAL_ACTION_VALUES,
  APPROVAL_APPROVER_VALUES,
  APPROVAL_TIMEOUT_VALUES,
  ApprovalAnswer,
  ApprovalAnswerInput,
  ApprovalPolicy,
  ApprovalPolicyInput,
  CATALOGUE_FORMAT_VALUES,
  DiscoveryStatus,
  INTERACTION_KIND_VALUES,
  INTERACTION_STATUS_VALUES,
  Interaction,
  InteractionPage,
  PolicyDryRun,
  PolicyDryRunInput,
  REMOTE_PROTOCOL_VALUES,
  RESOLUTION_VIA_VALUES,
  SecretRef,
  SettingChange,
  SettingsReload,
  SettingsView,
  StringOrSecret,
  Tool,
  ToolProvider,
  ToolRecord,
  ToolRecordInput,
  ToolRetryPolicy,
} from './routes/approvals-shared';
export { INTERACTION_ID_PATTERN_SOURCE, approveInteraction, cancelInteraction, denyInteraction, getInteraction, listInteractions } from './routes/interactions';
export { dryRunApprovalPolicy, getApprovalPolicy, putApprovalPolicy } from './routes/policy';
export { getTool, listTools, putTool, removeTool } from './routes/tools';
export { getSettings, reloadSettings } from './routes/settings';
// --- end batch C ---
// --- batch D: states, unrouted, agents, calls ---
export {
  Agent,
  AgentIdentity,
  AgentChangeInput,
  AgentInput,
  AgentUsage,
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
export { createAgent, getAgent, listAgents, revokeAgent, rotateAgent, updateAgent } from './routes/agents';
export { AnthropicAnswer, CallView, GeminiAnswer, OpenAiAnswer, OpenAiResponsesAnswer, callTool, getCall } from './routes/calls';
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
// --- end batch D ---
// --- batch B: runs & observation ---
export {
  Attempt,
  BulkAnswer,
  DiscardFilter,
  DiscardRequest,
  Nullable,
  OneOf,
  RetryFilter,
  RetryRequest,
  Run,
  RunEvent,
  RunPage,
  type RunEventData,
} from './routes/runs-shared';
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
  resolveRun,
  ResolveVerdict,
  retryRun,
  retryRuns,
} from './routes/runs';
export { AuditEntry, Delivery, StatsSeries, getDelivery, listAudit, runEvents, statsSeries, whoami } from './routes/observe';
// --- end batch B ---

/** Every declared route (the ingress mounts each; a test fails on a route that is in neither this list nor its shrinking list of undeclared ones). */
export const API_ROUTES: readonly RouteDecl[] = [
  ...TEMPLATE_ROUTES,
  // --- batch A: hooks & topic config ---
  ...HOOK_ROUTES,
  ...TOPIC_ROUTES,
  ...TRIGGER_LINK_ROUTES,
  // --- end batch A ---
  // --- batch C ---
  ...INTERACTION_ROUTES,
  ...POLICY_ROUTES,
  ...TOOL_ROUTES,
  ...SETTINGS_ROUTES,
  // --- end batch C ---
  // --- batch D ---
  ...STATE_ROUTES,
  ...UNROUTED_ROUTES,
  ...AGENT_ROUTES,
  ...CALL_ROUTES,
  // --- end batch D ---
  // --- batch B ---
  ...RUN_ROUTES,
  ...OBSERVE_ROUTES,
  // --- end batch B ---
];

/** The declared route of `METHOD /path` (the path as registered under /api), if any. */
export function declaredRoute(method: string, path: string): RouteDecl | undefined {
  return API_ROUTES.find((d) => d.method === method && d.path === path);
}
