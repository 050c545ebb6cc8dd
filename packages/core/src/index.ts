export {
  ERROR_KINDS,
  HookyardError,
  NOT_SENT_CODES,
  clearNotSent,
  markNotSent,
  badInput,
  cancelled,
  conflict,
  forbidden,
  httpStatusOf,
  internal,
  isErrorKind,
  isRetryableKind,
  notFound,
  quote,
  timeoutError,
  toHookyardError,
  unauthorized,
  unavailable,
} from './errors';
export type { ErrorInfo, ErrorKind, HookyardErrorOptions } from './errors';
export {
  HTTP_EXCHANGE_BODY_BYTES,
  HTTP_EXCHANGE_HEADER_CHARS,
  HTTP_EXCHANGE_MAX_HEADERS,
  REDACTED,
  cutUtf8,
  httpExchange,
  isHttpExchange,
  isSecretHeaderName,
} from './http-exchange';
export type { HttpExchange } from './http-exchange';
export { KEPT_HEADERS, KEPT_HEADERS_MAX, KEPT_HEADER_MAX_CHARS, keptHeaders } from './kept-headers';
export { NAME_MAX_LENGTH, NAME_PATTERN, NAME_PATTERN_SOURCE, PROVIDER_NAME_MAX_LENGTH, TOOL_NAME_MAX_LENGTH, isValidName, nameViolation } from './names';
export { backoffMs } from './backoff';
export { FAILURE_MESSAGE_SCAN_MAX, FINGERPRINT_PATTERN, failureFingerprint, groupFailures, maskFailureMessage } from './failures';
export type { FailureGroup } from './failures';
export { answerClientError } from './client-error';
export { compileErrorLines } from './compile-error-lines';
export { assignOwn, setOwn } from './own';
export { ManualClock, systemClock } from './clock';
export type { Clock } from './clock';
export { RUN_ID_PATTERN, newRunId, randomHex16 } from './ids';
export { INTERACTION_ID_PATTERN, INTERACTION_KINDS, INTERACTION_STATUSES, RESOLUTION_VIAS, argsHash, canonicalJson, newInteractionId } from './interactions';
export type { Interaction, InteractionKind, InteractionStatus, KeptOutcome, Resolution, ResolutionVia, ResolvedStatus, SubjectKey } from './interactions';
export {
  DOORS,
  FINISHED_STATUSES,
  HOOKS_RUN_FAILED_TOPIC,
  JQ_FIELDS,
  PLATFORM_EVENT_TOPICS,
  RESULT_MAX_BYTES,
  RUN_EVENT_TYPES,
  RUN_STATUSES,
  TOOL_EXTRA_IDEMPOTENCY_KEY,
  TOOL_EXTRA_SUBJECT,
  idempotencyKeyOf,
} from './types';
export { MCP_TRANSPORTS, REMOTE_PROTOCOLS } from './types';
export type {
  Acted,
  Door,
  Hook,
  HookSubject,
  JqField,
  JqFieldName,
  JqTemplate,
  McpTransportKind,
  Lease,
  RemoteProtocol,
  RemoteToolRecord,
  Run,
  RunHead,
  RunEvent,
  RunEventType,
  RunStatus,
  ToolRetryPolicy,
  VerifierBinding,
  DedupeBinding,
} from './types';
export { DEFAULT_SECRET_SCOPE, SECRET_ENV_NAME, createSecretResolver, isSecretRef, secretRefFormViolation, secretRefViolation } from './secrets';
export type { SecretRef, SecretResolver, SecretResolverOptions, SecretScope, StringOrSecret } from './secrets';
export { ALLOW_ALL, ALLOWLIST_ENTRY_PATTERN, allows, intersect, parseAllowlist } from './allowlist';
export {
  APPROVAL_ACTIONS,
  APPROVAL_APPROVERS,
  APPROVAL_TIMEOUT_ACTIONS,
  DEFAULT_APPROVAL_TIMEOUT_SECONDS,
  DEFAULT_DENY_MESSAGE,
  HOOKS_APPROVAL_REQUESTED_TOPIC,
} from './approval';
export type { ApprovalAction, ApprovalApprover, ApprovalPolicy, ApprovalRule, ApprovalTimeoutAction } from './approval';
export {
  APPROVAL_LINK_PATH,
  TOOL_EXTRA_APPROVE_URL,
  TOOL_EXTRA_DENY_URL,
  TOOL_EXTRA_LINKS_EXPIRE_AT,
  LINK_ISSUER_PATTERN,
  approvalLinkValid,
  approvalLinks,
  LINK_KEY_UNREADABLE,
  signApprovalLink,
} from './approval-links';
export type { ApprovalLinks, LinkCheck, LinkVerdict } from './approval-links';
export type { Allowlist } from './allowlist';
export { TRIGGER_LINK_ID_PATTERN, TRIGGER_LINK_PATH, TRIGGER_TOKEN_PATTERN, triggerRefusal } from './trigger-links';
export type { TriggerLink, TriggerLinkUse, TriggerRefusal } from './trigger-links';
export {
  LIVE_SETTINGS,
  ROLES,
  SETTINGS_ENV,
  SETTINGS_REGISTRY,
  SETTINGS_VARIABLES,
  SettingsError,
  checkSettingsAtBoot,
  loadSettings,
  nearestName,
  nearestSetting,
  unknownSettingMessage,
  unknownSettings,
  secretScopeOf,
  settingsDocs,
} from './settings';
export type { ApiToken, Role, Settings, SettingSpec, SettingVariable } from './settings';
export { parseSettingsFile, readSettingsFile, resolveSettings } from './settings-file';
export type { ResolvedSettings, SettingSource } from './settings-file';
export { createLiveSettings, shownValue } from './live-settings';
export type { ApplyListener, LiveSettings, LiveSettingsOptions, ReloadResult, ReloadTrigger, SettingChange, SettingView, SettingsView } from './live-settings';
export { METRIC_PREFIX, UNROUTED_LABEL_MAX, UNROUTED_OTHER, UNROUTED_TOPIC, countUnrouted, createMetrics } from './metrics';
export type { HookMetrics } from './metrics';
export { createLogger, silentLogger } from './logger';
export { createLogDestination } from './log-destination';
export type { LogDestination, LogDestinationOptions } from './log-destination';
export type { LogFn, Logger } from './logger';
export {
  INGEST_EVENT_SCHEMA,
  INGEST_HEADERS_SCHEMA,
  INGEST_TOPIC_SCHEMA,
  MESSAGE_SCHEMAS,
  RUN_FAILED_EVENT_SCHEMA,
  RUN_SUMMARY_SCHEMA,
  validateMessage,
} from './schemas';
export type { MessageCheck, MessageKind } from './schemas';
export { STATE_DOORS, STATE_HISTORY_MAX, STATE_OPS, mergePatch, stateBytes, subjectLabel } from './state';
export type { StateAttribution, StateDoor, StateOp, StateRecord, StateSummary, StateWrite } from './state';
export {
  STATE_TEMPLATE_NAMES,
  StateSchemas,
  bindingsOverlap,
  checkInsideAttach,
  declarationName,
  openDeclaration,
  pointerSegments,
  pointerViolation,
} from './state-declarations';
export type { StateBinding, StateDeclaration, StateDeclarationInput, StateDeclarationStore, StateTemplateName } from './state-declarations';
export type { DiscoveryOutcome, DiscoveryStatus, StatePage, StateStore, StateWriteInput, ToolStore } from './stores';
export { PARKED_MAX, RESERVED_EXTRA_PREFIX, cancelIds, extrasOf, resumeAct, shownOutput, shownOutputs } from './door-contract';
export type { DoorAct } from './door-contract';
export {
  SpanKind,
  SpanStatusCode,
  TRACER_NAME,
  SPAN_ATTR,
  activeTraceparent,
  contextOfHeaders,
  contextOfTraceparent,
  endSpanWithError,
  injectTrace,
  linkOf,
  parseTraceparent,
  setTracingOn,
  startSpan,
  traceLogFields,
  traced,
  traceparentOf,
  tracingOn,
  withSpan,
} from './tracing';
export type { Span, SpanOptions, TraceContext } from './tracing';
export {
  AGENT_CALL_TOPIC,
  AGENT_CALL_VIAS,
  AGENT_DENY_ADVICE,
  AGENT_HOOK_PREFIX,
  AGENT_REVOKED,
  AGENT_TOKEN_PREFIX,
  IDEMPOTENCY_KEY_MAX_LENGTH,
  agentAllowlist,
  agentDenialSentence,
  agentHookName,
  agentIdOfCall,
  agentMayCall,
  agentNameViolation,
  agentOfHook,
  agentTokenHash,
  agentTokenId,
  isCallOf,
  legacyAgentId,
  newAgentId,
} from './agents';
export type { AgentCallPayload, AgentCallVia, AgentClient, AgentIdentity, AgentSignIn } from './agents';
