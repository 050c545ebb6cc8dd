import type { IncomingMessage } from 'node:http';
import type { Clock, SecretResolver } from '@hookyard/core';
import type { RoleDeps } from '@hookyard/role';
import type { SchemaChecker } from '../hooks/schema-checker';
import type { SettingsControl } from './settings-routes';
import type { AuditRecorder } from '../audit/recorder';
import type { AgentOAuth } from '../oidc/agent-oauth';
import type { PersonOAuth } from '../oidc/person-oauth';

/** What every management route reads; built once by createIngressApp. */
export interface ApiContext extends RoleDeps {
  /** The ingress's clock (its deps' clock or the system clock), always set here. */
  clock: Clock;
  schemas: SchemaChecker;
  /** Called after a verifier binding changed, so the door's cache does not serve the old one. */
  onVerifierChanged(topic: string): void;
  /** This process's live settings (GET /api/settings, POST /api/settings/reload); absent, those routes answer 503. */
  settingsControl?: SettingsControl;
  /** Called after a dedupe key changed, for the same reason. */
  onDedupeChanged(topic: string): void;
  /** Called after an agent was revoked or its token rotated, so the MCP door closes the agent's open sessions. */
  onAgentRevoked?(name: string): void;
  /** Called after an agent's allowlist or description changed, so the MCP door tells its open sessions (tools/list_changed). */
  onAgentUpdated?(name: string): void;
  /** The agent door as an OAuth protected resource (HOOKS_OIDC_ISSUER): POST /api/calls and GET /api/calls/{id} take its access tokens. */
  agentOAuth?: AgentOAuth | null;
  /** The management API as a resource for people (HOOKS_OIDC_API_AUDIENCE): their access tokens beside the role tokens. */
  personOAuth?: PersonOAuth | null;
  /** The agent door's per-agent flood bucket (HOOKS_AGENT_RATE), shared by /mcp and POST /api/calls; absent: not limited. */
  limitAgent?: (agent: string) => Promise<{ ok: true } | { ok: false; retryAfterSeconds: number }>;
  /** Resolves secret references of settings (the approval link key); default: env and mounted files in the settings' scope. */
  secrets?: SecretResolver;
  /** Where operator and admin changes are recorded (GET /api/audit); default: one on these stores and settings. */
  audit?: AuditRecorder;
  /** The client's address as the ingress reads it (HOOKS_TRUSTED_PROXIES); default: the socket's peer. */
  clientAddress?: (req: IncomingMessage) => string;
  /** Check every answer of a declared route against its declared schema (test harnesses): an answer off its shape fails with 500. */
  validateAnswers?: boolean;
}
