import {
  HookyardError,
  isSecretRef,
  setOwn,
  secretRefViolation,
  type RemoteToolRecord,
  type SecretResolver,
  type SecretScope,
  type StringOrSecret,
} from '@hookyard/core';

/**
 * Tool records hold secrets by reference only. A value in `headers`,
 * `injected` or gRPC `metadata` is a literal or `{"secret": "env:NAME"}` /
 * `{"secret": "file:/path"}`; a literal under a name that looks like a
 * credential is refused on write, and references are resolved at call time.
 */

/** Names whose values are credentials: `authorization`, `proxy-authorization`, `cookie`, anything with key, token, secret, password or auth. */
const CREDENTIAL_NAME = /key|token|secret|password|auth|cookie/i;

/** True when a header, argument or metadata name looks like it carries a credential. */
export function isCredentialName(name: string): boolean {
  return CREDENTIAL_NAME.test(name);
}

const REF_HINT = 'use {"secret":"env:NAME"} (or {"secret":"file:/path"})';

/** What a tool record holds in place of a literal credential that was stored before references existed. */
export const REDACTED = '<redacted: register again with {"secret":"env:NAME"}>';

/**
 * The error line for a value that is shaped like a reference (an object with a
 * `secret` field) but is not a good one; undefined when it is a good one.
 * Only field names are shown, never values.
 */
export function secretValueViolation(field: string, value: Record<string, unknown>, scope?: SecretScope): string | undefined {
  const extra = Object.keys(value).filter((k) => k !== 'secret');
  if (extra.length > 0)
    return `${field}: a secret reference is {"secret":"env:NAME"} with no other field, got field(s) ${extra.map((k) => JSON.stringify(k)).join(', ')}`;
  return secretRefViolation(`${field}.secret`, value.secret, scope);
}

/** The refusal for a literal value under a credential-looking name (the value itself is never quoted). */
export function literalCredentialLine(field: string): string {
  return `${field} looks like a credential and is never stored as a literal; ${REF_HINT}`;
}

/**
 * Checks a map of string-or-secret values (`headers`, `metadata`): a good
 * reference, or a literal string that `literal` accepts and whose name is not
 * a credential's. One line per problem, naming the field.
 */
export function checkStringOrSecretMap(
  field: string,
  map: Record<string, unknown>,
  literal: (at: string, value: string) => string | undefined,
  errors: string[],
  scope?: SecretScope,
): Record<string, StringOrSecret> {
  const out: Record<string, StringOrSecret> = {};
  for (const [k, v] of Object.entries(map)) {
    const at = `${field}.${k}`;
    if (v !== null && typeof v === 'object' && !Array.isArray(v) && 'secret' in v) {
      const miss = secretValueViolation(at, v, scope);
      if (miss) errors.push(miss);
      else out[k] = { secret: (v as { secret: string }).secret };
    } else if (typeof v !== 'string') {
      errors.push(`${at} must be a string or {"secret":"env:NAME"}, got ${isCredentialName(k) ? typeof v : (JSON.stringify(v) ?? String(v))}`);
    } else if (isCredentialName(k)) {
      errors.push(literalCredentialLine(at));
    } else {
      const miss = literal(at, v);
      if (miss) errors.push(miss);
      else out[k] = v;
    }
  }
  return out;
}

/**
 * A secret reference a call needs could not be read or used: kind `internal`
 * (or `forbidden` for a reference outside HOOKS_SECRET_ENV_PREFIX /
 * HOOKS_SECRET_DIRS), quoting the reference, never a value.
 */
export class SecretReferenceError extends HookyardError {
  constructor(message: string, cause?: unknown, kind: 'internal' | 'forbidden' = 'internal') {
    super(kind, message, { cause });
  }
}

/** Told each secret value a call uses (ToolCallContext.onSecret), so what the run keeps of the call can be cut. */
export type SecretTold = ((value: string) => void) | undefined;

/** Resolves one reference to text, naming where it is used: `internal`, quoting the reference, when it cannot be read. */
async function resolveText(resolver: SecretResolver, what: string, at: string, ref: string, told?: SecretTold): Promise<string> {
  try {
    const value = (await resolver.resolve(ref)).toString('utf8');
    told?.(value);
    return value;
  } catch (err) {
    const message = err instanceof HookyardError ? err.message : `secret reference ${ref} cannot be read`;
    throw new SecretReferenceError(`${what}: ${at}: ${message}`, err, err instanceof HookyardError && err.kind === 'forbidden' ? 'forbidden' : 'internal');
  }
}

/**
 * A string-or-secret map with every reference resolved. `check` refuses a
 * resolved value that cannot be sent (a header with CR/LF, metadata that is
 * not printable ASCII): `internal`, quoting the reference, never the value.
 */
export async function resolveStringMap(
  resolver: SecretResolver,
  what: string,
  field: string,
  map: Readonly<Record<string, unknown>> | undefined,
  check: (value: string) => boolean = () => true,
  told?: SecretTold,
): Promise<Record<string, string>> {
  const out: Record<string, string> = {};
  for (const [k, v] of Object.entries(map ?? {})) {
    if (typeof v === 'string') {
      // A literal credential kept before references were required is a secret all the same.
      if (isCredentialName(k)) told?.(v);
      setOwn(out, k, v);
    } else if (isSecretRef(v)) {
      const value = await resolveText(resolver, what, `${field}.${k}`, v.secret, told);
      if (!check(value)) throw new SecretReferenceError(`${what}: ${field}.${k}: secret reference ${v.secret} holds a value that cannot be sent there`);
      setOwn(out, k, value);
    }
  }
  return out;
}

/** A header value may hold no CR, LF or NUL. */
export const headerSafe = (value: string): boolean => !/[\r\n\0]/.test(value);

/** Header values with every reference resolved (each value told to `told`). */
export function resolveHeaders(
  resolver: SecretResolver,
  what: string,
  headers: Readonly<Record<string, unknown>> | undefined,
  told?: SecretTold,
): Promise<Record<string, string>> {
  return resolveStringMap(resolver, what, 'headers', headers, headerSafe, told);
}

/** Injected values with every reference among `names` resolved (the others are not needed by this call). */
export async function resolveInjected(
  resolver: SecretResolver,
  what: string,
  injected: Readonly<Record<string, unknown>> | undefined,
  names: ReadonlySet<string>,
  told?: SecretTold,
): Promise<Record<string, unknown>> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(injected ?? {})) {
    if (!names.has(k)) continue;
    setOwn(out, k, isSecretRef(v) ? await resolveText(resolver, what, `injected.${k}`, v.secret, told) : v);
  }
  return out;
}

/**
 * Tells `told` every secret a record's calls may use, resolved now: each
 * reference in its headers, gRPC metadata and injected values, and each
 * literal under a credential-looking name. For the kinds whose secrets are
 * also used outside the call's own request (an MCP connection, an OpenAPI
 * document or gRPC reflection fetched on a cold cache), so a reply to any of
 * them is cut. A reference that cannot be read is skipped here: the use that
 * needs it fails, quoting it.
 */
export async function tellRecordSecrets(resolver: SecretResolver, record: RemoteToolRecord, told: SecretTold): Promise<void> {
  if (!told) return;
  for (const map of [record.headers, record.metadata, record.injected] as (Readonly<Record<string, unknown>> | undefined)[]) {
    for (const [k, v] of Object.entries(map ?? {})) {
      if (typeof v === 'string' && isCredentialName(k)) told(v);
      else if (isSecretRef(v)) {
        const value = await resolver.resolve(v.secret).then(
          (b) => b.toString('utf8'),
          () => undefined,
        );
        if (value !== undefined) told(value);
      }
    }
  }
}

/**
 * A record as the API shows it: references as they are, and any literal value
 * under a credential-looking name (a record stored before references were
 * required) replaced by a marker, so the API never echoes a credential.
 */
export function redactToolRecord(record: RemoteToolRecord): RemoteToolRecord {
  const out: RemoteToolRecord = { ...record };
  if (record.headers) out.headers = redactMap(record.headers) as Record<string, StringOrSecret>;
  if (record.metadata) out.metadata = redactMap(record.metadata) as Record<string, StringOrSecret>;
  if (record.injected) out.injected = redactMap(record.injected);
  return out;
}

function redactMap(map: Readonly<Record<string, unknown>>): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(map)) out[k] = isSecretRef(v) || !isCredentialName(k) ? v : REDACTED;
  return out;
}
