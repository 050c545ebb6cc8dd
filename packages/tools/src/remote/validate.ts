import {
  ERROR_KINDS,
  MCP_TRANSPORTS,
  PROVIDER_NAME_MAX_LENGTH,
  REMOTE_PROTOCOLS,
  TOOL_NAME_MAX_LENGTH,
  nameViolation,
  type RemoteProtocol,
  type RemoteToolRecord,
  type SecretScope,
  type StringOrSecret,
  type ToolRetryPolicy,
} from '@hookyard/core';
import { validateGrpcFields } from '../grpc';
import { checkInjected, checkMcpFields, checkOperations, providerNameViolation } from '../provider/validate';
import { checkStringOrSecretMap, headerSafe } from '../secret-values';
import { PROTOCOL_ALIASES } from './protocols';

/** Names of the built-in tools; a registration may not take them (the local tool would shadow it). */
export const BUILTIN_TOOL_NAMES: readonly string[] = [
  'echo',
  'print',
  'wait',
  'local_fs',
  'local_shell',
  'webhook',
  'js_execution',
  'state_get',
  'state_set',
  'state_merge',
  'state_delete',
];

export const TOOL_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;

/** Defaults of the optional fields of a registration. */
export const TOOL_RECORD_DEFAULTS = { method: 'POST', timeout_ms: 30_000 } as const;

const KINDS = ['http', 'openapi', 'mcp', 'grpc'] as const;
type ToolKind = (typeof KINDS)[number];

const COMMON_FIELDS = [
  'name',
  'kind',
  'endpoint',
  'timeout_ms',
  'headers',
  'description',
  'retry',
  'crash_resumable',
  // Server-managed: accepted so a listed record can be posted back, then overwritten.
  'created_at',
  'updated_at',
];
/** The fields each kind accepts besides the common ones. */
const KIND_FIELDS: Readonly<Record<ToolKind, readonly string[]>> = {
  http: ['method', 'body_properties', 'protocol'],
  openapi: ['injected', 'operations'],
  mcp: ['transport', 'command', 'args', 'injected', 'operations'],
  grpc: ['proto', 'services', 'metadata', 'injected', 'operations'],
};
const RETRY_FIELDS = new Set(['max_attempts', 'base_ms', 'cap_ms', 'kinds']);
const HEADER_NAME = /^[!#$%&'*+.^_`|~0-9A-Za-z-]+$/;

export type ToolRecordValidation = { ok: true; record: RemoteToolRecord } | { ok: false; errors: string[] };

export interface ToolRecordValidationOptions {
  /** HOOKS_MCP_STDIO_ALLOW: when given, an MCP stdio command outside it is refused on write (it is refused at spawn time anyway). */
  mcpStdioAllow?: readonly string[];
  /** HOOKS_SECRET_ENV_PREFIX / HOOKS_SECRET_DIRS: the references a record may hold (default DEFAULT_SECRET_SCOPE). */
  secretScope?: SecretScope;
}

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const show = (v: unknown) => JSON.stringify(v) ?? String(v);

/**
 * Validates a registration of a remote tool service on write: kind `http`
 * (the default; five wire protocols), `openapi` (operations discovered from
 * `{endpoint}/openapi.json`), `mcp` (an MCP server over stdio, SSE or
 * streamable HTTP) or `grpc`. Every problem is one line naming the field;
 * unknown fields are refused rather than ignored (a typo in `timeout_ms` must
 * not silently fall back to the default), and so are fields of another kind.
 */
export function validateToolRecord(input: unknown, now: Date, options: ToolRecordValidationOptions = {}): ToolRecordValidation {
  if (!isPlainObject(input)) return { ok: false, errors: [`a tool registration must be a JSON object, got ${show(input)}`] };
  const errors: string[] = [];
  const kind = input.kind === undefined ? 'http' : input.kind;
  const known = typeof kind === 'string' && (KINDS as readonly string[]).includes(kind) ? (kind as ToolKind) : undefined;
  if (!known) errors.push(`kind must be one of ${KINDS.join(', ')}, got ${show(input.kind)}`);
  for (const key of Object.keys(input)) {
    if (COMMON_FIELDS.includes(key) || (known && KIND_FIELDS[known].includes(key))) continue;
    const owners = KINDS.filter((k) => KIND_FIELDS[k].includes(key));
    if (known && owners.length > 0) errors.push(`field '${key}' applies only to kind ${owners.join(', ')}, not ${known}`);
    else if (owners.length === 0) errors.push(`unknown field '${key}'`);
  }

  const nameErr = nameViolation('name', input.name);
  if (nameErr) errors.push(nameErr);
  else if (BUILTIN_TOOL_NAMES.includes(input.name as string)) errors.push(`name '${String(input.name)}' is reserved for a built-in tool`);
  else if (known === 'openapi' || known === 'mcp' || known === 'grpc') {
    const sepErr = providerNameViolation(input.name as string);
    if (sepErr) errors.push(sepErr);
    if ((input.name as string).length > PROVIDER_NAME_MAX_LENGTH) {
      errors.push(
        `name of a registration of kind ${known} must be at most ${PROVIDER_NAME_MAX_LENGTH} characters (its tools are named <name>__<operation>, at most ${TOOL_NAME_MAX_LENGTH} in all)`,
      );
    }
  } else if ((input.name as string).length > TOOL_NAME_MAX_LENGTH) {
    errors.push(`name of a tool must be at most ${TOOL_NAME_MAX_LENGTH} characters (the limit of model function-calling APIs)`);
  }

  // gRPC checks its own endpoint and timeout (grpc:// URLs); an MCP endpoint depends on a known transport.
  const stdio = known === 'mcp' && input.transport === 'stdio';
  const mcpUnknownTransport = known === 'mcp' && !(MCP_TRANSPORTS as readonly unknown[]).includes(input.transport);
  if (known !== 'grpc' && !stdio && !mcpUnknownTransport) {
    const endpointErr = endpointViolation(input.endpoint);
    if (endpointErr) errors.push(endpointErr);
  }

  const timeout = input.timeout_ms === undefined ? TOOL_RECORD_DEFAULTS.timeout_ms : input.timeout_ms;
  if (known !== 'grpc' && (typeof timeout !== 'number' || !Number.isInteger(timeout) || timeout <= 0)) {
    errors.push(`timeout_ms must be a whole number of milliseconds > 0, got ${show(input.timeout_ms)}`);
  }

  const rawHeaders = input.headers === undefined ? {} : input.headers;
  let headers: Record<string, StringOrSecret> = {};
  // The values are most likely credentials: show the shape, not the content.
  if (!isPlainObject(rawHeaders))
    errors.push(`headers must be an object of strings or {"secret":"env:NAME"}, got ${Array.isArray(rawHeaders) ? 'a list' : typeof rawHeaders}`);
  else {
    for (const k of Object.keys(rawHeaders)) if (!HEADER_NAME.test(k)) errors.push(`headers: ${show(k)} is not a valid header name`);
    headers = checkStringOrSecretMap(
      'headers',
      rawHeaders,
      (at, v) => (headerSafe(v) ? undefined : `${at} must not contain CR, LF or NUL`),
      errors,
      options.secretScope,
    );
  }

  if (input.description !== undefined && typeof input.description !== 'string') {
    errors.push(`description must be a string, got ${show(input.description)}`);
  }
  if (input.crash_resumable !== undefined && typeof input.crash_resumable !== 'boolean') {
    errors.push(`crash_resumable must be true or false, got ${show(input.crash_resumable)}`);
  }
  const retry = input.retry === undefined ? undefined : checkRetry(input.retry, errors);

  const stamp = now.toISOString();
  const record: RemoteToolRecord = {
    name: input.name as string,
    kind: known ?? 'http',
    endpoint: stdio ? '' : (input.endpoint as string),
    timeout_ms: timeout as number,
    headers,
    created_at: stamp,
    updated_at: stamp,
  };
  if (known === 'http') httpFields(input, record, errors);
  if (known === 'openapi' || known === 'mcp' || known === 'grpc') {
    const injected = checkInjected(input.injected, errors, options.secretScope);
    const operations = checkOperations(input.operations, errors);
    if (injected) record.injected = injected;
    if (operations) record.operations = operations;
  }
  if (known === 'mcp') {
    const fields = checkMcpFields(input, options.mcpStdioAllow, errors);
    if (fields) Object.assign(record, fields);
  }
  if (known === 'grpc') grpcFields(input, record, errors, options.secretScope);

  if (errors.length > 0) return { ok: false, errors };
  if (input.description !== undefined) record.description = input.description as string;
  if (retry) record.retry = retry;
  if (input.crash_resumable !== undefined) record.crash_resumable = input.crash_resumable as boolean;
  return { ok: true, record };
}

/** Kind http: method, body properties and the wire protocol. */
function httpFields(input: Record<string, unknown>, record: RemoteToolRecord, errors: string[]): void {
  const method = input.method === undefined ? TOOL_RECORD_DEFAULTS.method : input.method;
  if (typeof method !== 'string' || !(TOOL_METHODS as readonly string[]).includes(method)) {
    errors.push(`method must be one of ${TOOL_METHODS.join(', ')}, got ${show(input.method)}`);
  }
  const bodyProps = input.body_properties === undefined ? {} : input.body_properties;
  if (!isPlainObject(bodyProps)) errors.push(`body_properties must be an object, got ${show(input.body_properties)}`);
  const protocol = typeof input.protocol === 'string' ? (PROTOCOL_ALIASES[input.protocol] ?? input.protocol) : undefined;
  if (protocol === undefined || !(REMOTE_PROTOCOLS as readonly string[]).includes(protocol)) {
    errors.push(`protocol must be one of ${[...REMOTE_PROTOCOLS, 'langserve'].join(', ')}, got ${show(input.protocol)}`);
  }
  record.method = method as string;
  record.body_properties = bodyProps as Record<string, unknown>;
  record.protocol = protocol as RemoteProtocol;
}

/** Kind grpc: endpoint, timeout, proto, services and metadata are checked by the gRPC provider's own rules. */
function grpcFields(input: Record<string, unknown>, record: RemoteToolRecord, errors: string[], scope: SecretScope | undefined): void {
  if (input.headers !== undefined) errors.push('headers do not apply to kind grpc; use metadata');
  errors.push(...validateGrpcFields(input, scope));
  if (typeof input.proto === 'string') record.proto = input.proto;
  if (Array.isArray(input.services)) record.services = [...(input.services as string[])];
  if (isPlainObject(input.metadata)) record.metadata = checkStringOrSecretMap('metadata', input.metadata, () => undefined, []);
}

/** The error line for a bad endpoint; undefined when it is a usable http(s) URL. */
function endpointViolation(value: unknown): string | undefined {
  if (typeof value !== 'string') return `endpoint must be an http(s) URL string, got ${show(value)}`;
  let url: URL;
  try {
    url = new URL(value);
  } catch {
    return `endpoint is not a URL: ${show(value)}`;
  }
  if (url.protocol !== 'http:' && url.protocol !== 'https:') return `endpoint scheme must be http or https, got ${show(url.protocol.replace(/:$/, ''))}`;
  if (url.hostname === '') return `endpoint must name a host, got ${show(value)}`;
  // Records are listed by the API; a secret belongs in a header reference, not in the URL.
  if (url.username !== '' || url.password !== '') return 'endpoint must not carry credentials (user:password@); use headers with {"secret":"env:NAME"}';
  return undefined;
}

function checkRetry(value: unknown, errors: string[]): ToolRetryPolicy | undefined {
  if (!isPlainObject(value)) {
    errors.push(`retry must be an object {max_attempts, base_ms, cap_ms, kinds}, got ${show(value)}`);
    return undefined;
  }
  const before = errors.length;
  for (const key of Object.keys(value)) if (!RETRY_FIELDS.has(key)) errors.push(`unknown field 'retry.${key}'`);
  const { max_attempts, base_ms, cap_ms, kinds } = value;
  if (typeof max_attempts !== 'number' || !Number.isInteger(max_attempts) || max_attempts < 1 || max_attempts > 100) {
    errors.push(`retry.max_attempts must be a whole number from 1 to 100, got ${show(max_attempts)}`);
  }
  if (typeof base_ms !== 'number' || !Number.isInteger(base_ms) || base_ms < 0) {
    errors.push(`retry.base_ms must be a whole number >= 0, got ${show(base_ms)}`);
  }
  if (typeof cap_ms !== 'number' || !Number.isInteger(cap_ms) || cap_ms < 0) {
    errors.push(`retry.cap_ms must be a whole number >= 0, got ${show(cap_ms)}`);
  } else if (typeof base_ms === 'number' && cap_ms < base_ms) {
    errors.push(`retry.cap_ms must be >= retry.base_ms (${base_ms}), got ${cap_ms}`);
  }
  if (!Array.isArray(kinds) || kinds.length === 0) {
    errors.push(`retry.kinds must be a non-empty list of error kinds (${ERROR_KINDS.join(', ')}), got ${show(kinds)}`);
  } else {
    for (const k of kinds) {
      if (typeof k !== 'string' || !(ERROR_KINDS as readonly string[]).includes(k))
        errors.push(`retry.kinds: ${show(k)} is not an error kind (${ERROR_KINDS.join(', ')})`);
    }
  }
  if (errors.length > before) return undefined;
  return { max_attempts: max_attempts as number, base_ms: base_ms as number, cap_ms: cap_ms as number, kinds: [...(kinds as string[])] };
}
