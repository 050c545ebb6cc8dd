import { DEFAULT_SECRET_SCOPE, nameViolation, secretRefFormViolation, secretRefViolation, type SecretScope } from '@hookyard/core';
import type { VerifierBinding } from '@hookyard/core';
import { KIND_FIELDS, VERIFIER_KINDS, compileSettings } from './settings';
import type { VerifierKind } from './settings';

/** Rotation needs two; a few more cover staged roll-outs. More is a mistake. */
export const MAX_SECRETS = 5;

const TOP_LEVEL = new Set(['kind', 'nats', 'secret', 'secrets', 'settings', 'topic']);

/** The one value of a binding's `nats` field: the NATS door keeps the topic's messages (unverified). */
export const NATS_TRUSTED = 'trusted' as const;

/** The one line for a secret reference that is wrong (shared with tool records). */
export { secretRefViolation };

/**
 * Checks a PUT body for a topic's verifier and builds the binding to keep.
 * One line per miss, each naming the field. Secrets must be references
 * (`env:NAME`, `file:/path`), several while rotating. `nats: "trusted"` lets
 * the NATS door keep the topic's messages (absent: it refuses them). `created_at` and
 * `updated_at` are both `now`; a route replacing a binding keeps the old `created_at`.
 */
export function validateVerifierBinding(
  topic: string,
  input: unknown,
  now: Date,
  scope: SecretScope = DEFAULT_SECRET_SCOPE,
): { ok: true; binding: VerifierBinding } | { ok: false; errors: string[] } {
  const errors: string[] = [];
  const topicMiss = nameViolation('topic', topic);
  if (topicMiss) errors.push(topicMiss);
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return { ok: false, errors: [...errors, `the verifier must be a JSON object {kind, secrets, settings}, got ${JSON.stringify(input) ?? typeof input}`] };
  }
  const body = input as Record<string, unknown>;
  const kind = body.kind;
  const knownKind = typeof kind === 'string' && (VERIFIER_KINDS as readonly string[]).includes(kind);
  if (!knownKind) errors.push(`kind must be one of ${VERIFIER_KINDS.join(', ')}, got ${JSON.stringify(kind) ?? 'nothing'}`);

  for (const name of Object.keys(body)) {
    if (TOP_LEVEL.has(name)) continue;
    const isSetting = knownKind && name in KIND_FIELDS[kind as VerifierKind];
    errors.push(isSetting ? `${name} belongs under settings (settings.${name})` : `unknown field ${JSON.stringify(name)}`);
  }
  if (body.topic !== undefined && body.topic !== topic) {
    errors.push(`topic in the body (${JSON.stringify(body.topic)}) differs from the topic in the path (${JSON.stringify(topic)})`);
  }

  // Absent: the NATS door refuses the topic. Only an explicit "trusted" opts NATS in.
  if (body.nats !== undefined && body.nats !== NATS_TRUSTED) {
    errors.push(`nats must be "${NATS_TRUSTED}" (or left out: the NATS door refuses the topic), got ${JSON.stringify(body.nats)}`);
  }
  const secrets = collectSecrets(body, errors, scope);
  let settings: Record<string, unknown> = {};
  if (knownKind) {
    const compiled = compileSettings(kind as VerifierKind, body.settings);
    errors.push(...compiled.errors);
    settings = compiled.values;
  }
  if (errors.length > 0) return { ok: false, errors };
  const at = now.toISOString();
  const nats = body.nats === NATS_TRUSTED ? { nats: NATS_TRUSTED } : {};
  return { ok: true, binding: { topic, kind: kind as VerifierKind, settings, secrets, ...nats, created_at: at, updated_at: at } };
}

function collectSecrets(body: Record<string, unknown>, errors: string[], scope: SecretScope): string[] {
  if (body.secret !== undefined && body.secrets !== undefined) {
    errors.push('give either secret or secrets, not both');
    return [];
  }
  if (body.secret !== undefined) {
    const miss = secretRefViolation('secret', body.secret, scope);
    if (miss) errors.push(miss);
    return miss ? [] : [body.secret as string];
  }
  if (body.secrets === undefined) {
    errors.push('secrets is required: one or more references env:NAME or file:/path (several while rotating)');
    return [];
  }
  if (!Array.isArray(body.secrets) || body.secrets.length === 0 || body.secrets.length > MAX_SECRETS) {
    errors.push(`secrets must be a list of 1 to ${MAX_SECRETS} references env:NAME or file:/path`);
    return [];
  }
  const list = body.secrets as unknown[];
  list.forEach((ref, i) => {
    const miss = secretRefViolation(`secrets[${i}]`, ref, scope);
    if (miss) errors.push(miss);
    else if (list.indexOf(ref) !== i) errors.push(`secrets[${i}] repeats secrets[${list.indexOf(ref)}]`);
  });
  return list.filter((ref): ref is string => typeof ref === 'string');
}

/**
 * What a GET of the binding shows. Bindings hold references only, but anything
 * that is not a well-formed reference (a store edited by hand) is masked.
 */
export function redactBinding(binding: VerifierBinding): VerifierBinding {
  return {
    topic: binding.topic,
    kind: binding.kind,
    settings: { ...binding.settings },
    secrets: binding.secrets.map((ref) => (secretRefFormViolation('secret', ref) === undefined ? ref : '<redacted: not a reference>')),
    ...(binding.nats === NATS_TRUSTED ? { nats: NATS_TRUSTED } : {}),
    created_at: binding.created_at,
    updated_at: binding.updated_at,
  };
}
