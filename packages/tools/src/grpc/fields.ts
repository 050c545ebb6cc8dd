import { isSecretRef, type RemoteToolRecord, type SecretScope, type StringOrSecret } from '@hookyard/core';
import { checkStringOrSecretMap } from '../secret-values';
import { lazy } from '../lazy';

// protobufjs only when a record carries a .proto to check.
// eslint-disable-next-line @typescript-eslint/no-require-imports
const protoText = lazy(() => require('./proto-text') as typeof import('./proto-text'));

/**
 * The gRPC-specific fields of a tool record of kind `grpc`. `RemoteToolRecord`
 * does not name `proto`, `services` and `metadata` yet, so they are read by
 * shape; `validateGrpcFields` is what guarantees the shape on write.
 */
export interface GrpcTarget {
  /** `host:port` as grpc-js wants it (IPv6 hosts keep their brackets). */
  address: string;
  tls: boolean;
}

export interface GrpcRecordConfig extends GrpcTarget {
  name: string;
  /** .proto source text used instead of server reflection; undefined means reflect. */
  proto?: string;
  /** Fully-qualified service names to expose; undefined means every service. */
  services?: string[];
  /** Sent as metadata with every call (and with reflection requests): literals, and references resolved per call. */
  metadata: Record<string, StringOrSecret>;
  timeoutMs: number;
}

/** Default time bound of a call when a record has no `timeout_ms` (same as HTTP tools). */
export const DEFAULT_GRPC_TIMEOUT_MS = 30_000;
/** Largest `.proto` text a record may carry. */
export const MAX_PROTO_BYTES = 256 * 1024;

const SERVICE_NAME = /^[A-Za-z_][A-Za-z0-9_]*(\.[A-Za-z_][A-Za-z0-9_]*)*$/;
// gRPC metadata keys are lowercase on the wire; grpc-js lowercases, so either case is accepted.
const METADATA_KEY = /^[0-9A-Za-z_.-]+$/;
// Printable ASCII only: grpc-js refuses anything else in a text metadata value.
const METADATA_VALUE = /^[\x20-\x7e]*$/;

/** A text metadata value grpc-js will send: printable ASCII only. */
export const metadataSafe = (value: string): boolean => METADATA_VALUE.test(value);

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const show = (v: unknown) => JSON.stringify(v) ?? String(v);

/**
 * `grpc://host:port` (plaintext) or `grpcs://host:port` (TLS). A bare
 * `host:port` is refused: the scheme is the only place that says whether the
 * channel is encrypted, and guessing wrong either sends plaintext or fails
 * the handshake.
 */
export function parseGrpcEndpoint(value: unknown): GrpcTarget | string {
  const want = 'grpc://host:port (plaintext) or grpcs://host:port (TLS)';
  if (typeof value !== 'string') return `endpoint must be ${want}, got ${show(value)}`;
  const m = /^(grpcs?):\/\/(.*)$/i.exec(value);
  if (!m) return `endpoint must be ${want}, got ${show(value)}`;
  const rest = (m[2] ?? '').replace(/\/$/, '');
  if (/[@/?#\s]/.test(rest)) return `endpoint must be ${want} with no credentials, path or query, got ${show(value)}`;
  const hp = /^(\[[0-9A-Fa-f:.]+\]|[A-Za-z0-9.-]+):([0-9]{1,5})$/.exec(rest);
  const port = hp ? Number(hp[2]) : NaN;
  if (!hp || port < 1 || port > 65535) return `endpoint must name a host and a port from 1 to 65535 (${want}), got ${show(value)}`;
  return { address: `${hp[1]}:${port}`, tls: (m[1] ?? '').toLowerCase() === 'grpcs' };
}

/**
 * The error lines for the gRPC-specific fields of a record of kind `grpc`:
 * `endpoint`, `proto`, `services`, `metadata`, `timeout_ms`. Empty when they
 * are usable. Other fields (name, description, retry, …) are the caller's.
 */
export function validateGrpcFields(input: Record<string, unknown>, scope?: SecretScope): string[] {
  const errors: string[] = [];
  const endpoint = parseGrpcEndpoint(input.endpoint);
  if (typeof endpoint === 'string') errors.push(endpoint);

  if (input.timeout_ms !== undefined) {
    const t = input.timeout_ms;
    if (typeof t !== 'number' || !Number.isInteger(t) || t <= 0) errors.push(`timeout_ms must be a whole number of milliseconds > 0, got ${show(t)}`);
  }

  let services: string[] | undefined;
  if (input.services !== undefined) {
    if (!Array.isArray(input.services) || input.services.length === 0) {
      errors.push(`services must be a non-empty list of fully-qualified service names (e.g. "pkg.Service"), got ${show(input.services)}`);
    } else {
      services = [];
      for (const s of input.services as unknown[]) {
        if (typeof s !== 'string' || !SERVICE_NAME.test(s)) errors.push(`services: ${show(s)} is not a fully-qualified service name (e.g. "pkg.Service")`);
        else if (services.includes(s)) errors.push(`services: ${show(s)} is listed twice`);
        else services.push(s);
      }
    }
  }

  if (input.metadata !== undefined) {
    // The values are most likely credentials: show the shape, not the content.
    if (!isPlainObject(input.metadata))
      errors.push(`metadata must be an object of strings or {"secret":"env:NAME"}, got ${Array.isArray(input.metadata) ? 'a list' : typeof input.metadata}`);
    else {
      for (const [k, v] of Object.entries(input.metadata)) {
        if (!METADATA_KEY.test(k)) errors.push(`metadata: ${show(k)} is not a valid metadata key ([0-9a-z_.-])`);
        else if (k.toLowerCase().startsWith('grpc-')) errors.push(`metadata: ${show(k)} is reserved (grpc- prefix)`);
        else if (k.toLowerCase().endsWith('-bin')) errors.push(`metadata: ${show(k)} is a binary key (-bin); only text metadata is supported`);
        // A literal, or a reference `{"secret":"env:NAME"}`; a credential-looking key takes a reference only.
        checkStringOrSecretMap('metadata', { [k]: v }, (at, value) => (metadataSafe(value) ? undefined : `${at} must be printable ASCII`), errors, scope);
      }
    }
  }

  if (input.proto !== undefined) {
    if (typeof input.proto !== 'string' || input.proto.trim() === '') errors.push(`proto must be the text of a .proto file, got ${show(input.proto)}`);
    else if (Buffer.byteLength(input.proto) > MAX_PROTO_BYTES) errors.push(`proto must be at most ${MAX_PROTO_BYTES} bytes`);
    else {
      const parsed = protoText().parseProtoText(input.proto);
      if (!parsed.ok) errors.push(...parsed.errors.map((e) => `proto: ${e}`));
      else if (parsed.services.length === 0) errors.push('proto: declares no service');
      else if (services) {
        for (const s of services)
          if (!parsed.services.includes(s)) errors.push(`services: ${show(s)} is not declared in proto (it declares ${parsed.services.join(', ')})`);
      }
    }
  }
  return errors;
}

/**
 * The gRPC view of a stored record. Assumes it passed `validateGrpcFields`;
 * returns an error line instead of throwing when the endpoint does not parse.
 */
export function grpcConfigOf(record: RemoteToolRecord): GrpcRecordConfig | string {
  const extra = record as unknown as Record<string, unknown>;
  const target = parseGrpcEndpoint(record.endpoint);
  if (typeof target === 'string') return target;
  const config: GrpcRecordConfig = {
    ...target,
    name: record.name,
    metadata: isPlainObject(extra.metadata) ? stringsOf(extra.metadata) : {},
    timeoutMs: typeof record.timeout_ms === 'number' && record.timeout_ms > 0 ? record.timeout_ms : DEFAULT_GRPC_TIMEOUT_MS,
  };
  if (typeof extra.proto === 'string') config.proto = extra.proto;
  if (Array.isArray(extra.services)) config.services = extra.services.filter((s): s is string => typeof s === 'string');
  return config;
}

function stringsOf(map: Record<string, unknown>): Record<string, StringOrSecret> {
  const out: Record<string, StringOrSecret> = {};
  for (const [k, v] of Object.entries(map)) if (typeof v === 'string' || isSecretRef(v)) out[k] = v;
  return out;
}
