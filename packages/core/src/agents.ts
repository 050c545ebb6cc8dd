import { createHash, randomUUID } from 'node:crypto';
import { allows, intersect, parseAllowlist, type Allowlist } from './allowlist';
import { nameViolation } from './names';
import type { Run } from './types';

/**
 * The agent door's shared vocabulary: the agent client principal, how an
 * agent call is kept as a run, and the one function that decides which tools
 * an agent may see and call (list and call never disagree).
 */

/** A named agent principal, as the API shows it (the token is never kept: only its SHA-256). */
export interface AgentClient {
  /**
   * Made at creation and never changed: calls, idempotency keys, tasks and
   * sessions belong to it, so a name reused after a revoke inherits nothing.
   * An agent kept before agents had ids has its name as its id (legacyAgentId).
   */
  id: string;
  name: string;
  description: string | null;
  /** The agent's own allowlist (grammar: `*`, exact names, `!name`); intersected with the deployment's. */
  tools_allow: string[];
  /** The first 8 hex chars of the token's SHA-256: tells tokens apart in records without showing one. */
  token_id: string;
  created_at: string;
  updated_at: string;
  /**
   * Who at an identity provider may act as this agent with an OAuth access
   * token (besides its `hya_` token); absent or empty: nobody.
   */
  identities?: AgentIdentity[];
  /**
   * Set on a request's principal only (never kept): the IdP identity the
   * request's access token named, when it came with one rather than a `hya_` token.
   */
  signed_in?: AgentSignIn;
}

/**
 * One IdP identity an agent answers to: an access token from `issuer` whose
 * `sub` is `subject` and/or whose `client_id` (or `azp`) is `client_id`; at
 * least one of the two is given, so an issuer alone never names an agent.
 */
export interface AgentIdentity {
  issuer: string;
  subject?: string;
  client_id?: string;
}

/** The IdP identity a request or a call came with (an access token's `iss`, `sub` and `client_id`/`azp`). */
export interface AgentSignIn {
  issuer: string;
  subject: string | null;
  client_id: string | null;
}

/** The prefix of an agent token: recognisable in a leak scan, never a valid management token by accident. */
export const AGENT_TOKEN_PREFIX = 'hya_';

/** The SHA-256 (hex) an agent token is kept and looked up by. */
export function agentTokenHash(token: string): string {
  return createHash('sha256').update(token, 'utf8').digest('hex');
}

/** A new agent's id: a random UUID (never a name reused). */
export function newAgentId(): string {
  return randomUUID();
}

/**
 * The id of an agent kept before agents had ids: its name. Its calls were
 * kept under that name (no `agent_id`, idempotency keys scoped by the name),
 * so they stay its own; a new agent of the same name gets a UUID and none of them.
 */
export function legacyAgentId(name: string): string {
  return name;
}

/** The `token_id` of a token hash (its first 8 hex chars). */
export function agentTokenId(tokenHash: string): string {
  return tokenHash.slice(0, 8);
}

/**
 * An agent run's `hook` slot: `agent:<name>`. A hook name can never contain
 * `:`, so an agent's runs never mix with a hook's, and the run indexes by
 * hook serve the filter by agent.
 */
export const AGENT_HOOK_PREFIX = 'agent:';
export function agentHookName(agent: string): string {
  return AGENT_HOOK_PREFIX + agent;
}
/** The agent a run's `hook` slot names, or null for a hook's run. */
export function agentOfHook(hook: string): string | null {
  return hook.startsWith(AGENT_HOOK_PREFIX) ? hook.slice(AGENT_HOOK_PREFIX.length) : null;
}

/** The `topic` of every agent run (not a valid topic name, so never a sender's topic). */
export const AGENT_CALL_TOPIC = 'tools/call';

/** How an agent call reached the door. */
export const AGENT_CALL_VIAS = ['mcp', 'http'] as const;
export type AgentCallVia = (typeof AGENT_CALL_VIAS)[number];

/** The payload of an agent run: the call itself. */
export interface AgentCallPayload {
  /**
   * The id of the agent that made the call: its owner, whatever its name
   * becomes. Absent on a call kept before agents had ids: its owner is then
   * the agent its hook slot names, by that agent's legacy id (agentIdOfCall).
   */
  agent_id?: string;
  tool: string;
  arguments: Record<string, unknown>;
  /** `argsHash(arguments)`: the SHA-256 of the canonical arguments, as an approval binds them. */
  args_sha256: string;
  /** The runtime allowlist the caller attached (narrows only), or null for none. */
  tools_allow: string[] | null;
  /** The client's idempotency key, or the one the door made up. */
  idempotency_key: string;
  via: AgentCallVia;
  /** The IdP identity the call's access token named; absent for a call made with a `hya_` token. */
  signed_in?: AgentSignIn;
}

/** The id of the agent an agent run belongs to (see AgentCallPayload.agent_id), or null for a hook's run. */
export function agentIdOfCall(run: Pick<Run, 'door' | 'hook' | 'payload'>): string | null {
  const name = run.door === 'agent' ? agentOfHook(run.hook) : null;
  if (name === null) return null;
  const id = (run.payload as { agent_id?: unknown } | null)?.agent_id;
  return typeof id === 'string' ? id : legacyAgentId(name);
}

/**
 * True when the run is a call of this agent: its hook slot names the agent
 * and its owner is the agent's id. A call kept before ids (no `agent_id`) is
 * also refused to an agent made after it, so a name revoked and made again
 * before the upgrade does not hand its successor the old calls either.
 */
export function isCallOf(agent: Pick<AgentClient, 'id' | 'name' | 'created_at'>, run: Pick<Run, 'door' | 'hook' | 'payload' | 'created_at'>): boolean {
  if (run.door !== 'agent' || run.hook !== agentHookName(agent.name) || agentIdOfCall(run) !== agent.id) return false;
  const kept = (run.payload as { agent_id?: unknown } | null)?.agent_id;
  return typeof kept === 'string' || Date.parse(run.created_at) >= Date.parse(agent.created_at);
}

/** Why a revoked agent's calls end `denied`: the reason of the approvals a revoke ends, and the start of the executor's sentence. */
export const AGENT_REVOKED = 'agent revoked';

/** Bound on an idempotency key's length. */
export const IDEMPOTENCY_KEY_MAX_LENGTH = 200;

/** The sentence every denial handed to an agent ends with. */
export const AGENT_DENY_ADVICE = 'please ask for clarification or try a different, less destructive approach';

/** A denial's sentence for a model: the rule's (or approver's) message, then the advice, once. */
export function agentDenialSentence(message: string): string {
  const m = message.trim().replace(/[.\s]+$/, '');
  if (m === '') return `This call was denied: ${AGENT_DENY_ADVICE}.`;
  return m.toLowerCase().includes('less destructive approach') ? `${m}.` : `${m}. ${cap(AGENT_DENY_ADVICE)}.`;
}

const cap = (s: string) => s.charAt(0).toUpperCase() + s.slice(1);

/**
 * What an agent may see and call: the deployment's allowlist ∩ the agent's ∩
 * the runtime allowlist the caller attached (absent: no narrowing). The
 * stricter side always wins; `tools/list` and `tools/call` both use this.
 */
export function agentAllowlist(deployment: readonly string[], agent: readonly string[], runtime: readonly string[] | null | undefined): Allowlist {
  let list = intersect(parseAllowlist(deployment), parseAllowlist(agent));
  if (runtime) list = intersect(list, parseAllowlist(runtime));
  return list;
}

/** True when the agent may see and call `tool` (see agentAllowlist). */
export function agentMayCall(deployment: readonly string[], agent: readonly string[], runtime: readonly string[] | null | undefined, tool: string): boolean {
  return allows(agentAllowlist(deployment, agent, runtime), tool);
}

/** A problem with an agent name (hook name rules), or null. */
export function agentNameViolation(name: unknown): string | null {
  return nameViolation('name', name) ?? null;
}
