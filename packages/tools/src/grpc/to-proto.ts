import { badInput } from '@hookyard/core';
import * as protobuf from 'protobufjs';
import { INT32_TYPES, LONG_TYPES, UNSIGNED_TYPES, WRAPPER_TYPES, jsonNameOf, mapKeyType } from './json-names';

type Plain = Record<string, unknown>;

const isPlainObject = (v: unknown): v is Plain => v !== null && typeof v === 'object' && !Array.isArray(v);
const show = (v: unknown) => JSON.stringify(v) ?? String(v);
const Long = protobuf.util.Long as unknown as { fromString(s: string, unsigned: boolean): unknown };

const INT32_RANGE = { signed: [-(2 ** 31), 2 ** 31 - 1], unsigned: [0, 2 ** 32 - 1] } as const;
const INT64_RANGE = { signed: [-(2n ** 63n), 2n ** 63n - 1n], unsigned: [0n, 2n ** 64n - 1n] } as const;
const BASE64 = /^[A-Za-z0-9+/_-]*={0,2}$/;

/**
 * A call's arguments (proto3 JSON: JSON names or proto names, 64-bit integers
 * as strings or numbers, enums by name or number, bytes as base64) turned into
 * the request bytes. Anything that does not fit the message is a `bad_input`
 * naming the path, never silently dropped: proto3 JSON parsers refuse
 * unknown fields too.
 */
export function encodeRequest(type: protobuf.Type, args: Record<string, unknown>): Buffer {
  const message = messageOf(type, args, '');
  return Buffer.from(type.encode(message).finish());
}

function messageOf(type: protobuf.Type, value: unknown, path: string): Plain {
  const wkt = wellKnownOf(type, value, path);
  if (wkt !== undefined) return wkt;
  if (!isPlainObject(value)) throw badInput(`${where(path)}must be an object (${type.fullName.slice(1)}), got ${show(value)}`);
  const byName = new Map<string, protobuf.Field>();
  for (const field of type.fieldsArray) {
    byName.set(jsonNameOf(field), field);
    byName.set(field.name, field);
  }
  const out: Plain = {};
  const oneofSet = new Map<string, string>();
  for (const [key, v] of Object.entries(value)) {
    const field = byName.get(key);
    if (!field) throw badInput(`${where(path)}unknown field ${show(key)} for ${type.fullName.slice(1)}`);
    const fieldPath = path ? `${path}.${key}` : key;
    if (Object.hasOwn(out, field.name)) throw badInput(`${where(fieldPath)}is given twice (as ${jsonNameOf(field)} and ${field.name})`);
    // null means "not set" in proto3 JSON, except for google.protobuf.Value where it is the null value.
    if (v === null && field.resolvedType?.fullName !== '.google.protobuf.Value') continue;
    const group = field.partOf;
    if (group) {
      const prev = oneofSet.get(group.name);
      if (prev !== undefined && !group.name.startsWith('_'))
        throw badInput(`${where(fieldPath)}and ${show(prev)} are members of oneof ${show(group.name)}; give one`);
      oneofSet.set(group.name, key);
    }
    out[field.name] = fieldOf(field, v, fieldPath);
  }
  return out;
}

function fieldOf(field: protobuf.Field, value: unknown, path: string): unknown {
  if (field.map) {
    if (!isPlainObject(value)) throw badInput(`${where(path)}must be an object (a map), got ${show(value)}`);
    const keyType = mapKeyType(field);
    const out: Plain = {};
    for (const [k, v] of Object.entries(value)) {
      out[mapKeyOf(keyType, k, `${path}.${k}`)] = singleOf(field, v, `${path}.${k}`);
    }
    return out;
  }
  if (field.repeated) {
    if (!Array.isArray(value)) throw badInput(`${where(path)}must be an array, got ${show(value)}`);
    return value.map((v, i) => singleOf(field, v, `${path}[${i}]`));
  }
  return singleOf(field, value, path);
}

function singleOf(field: protobuf.Field, value: unknown, path: string): unknown {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Type) return messageOf(resolved, value, path);
  if (resolved instanceof protobuf.Enum) return enumOf(resolved, value, path);
  return scalarOf(field.type, value, path);
}

function enumOf(en: protobuf.Enum, value: unknown, path: string): number {
  if (en.fullName === '.google.protobuf.NullValue') return 0;
  if (typeof value === 'string' && Object.hasOwn(en.values, value)) return en.values[value] as number;
  if (typeof value === 'number' && Number.isInteger(value) && value >= INT32_RANGE.signed[0] && value <= INT32_RANGE.signed[1]) return value;
  throw badInput(`${where(path)}must be one of ${Object.keys(en.values).join(', ')}, got ${show(value)}`);
}

/** Scalars as proto3 JSON accepts them; 64-bit integers become Longs so no precision is lost. */
export function scalarOf(type: string, value: unknown, path: string): unknown {
  switch (type) {
    case 'string':
      if (typeof value !== 'string') throw badInput(`${where(path)}must be a string, got ${show(value)}`);
      return value;
    case 'bool':
      if (typeof value !== 'boolean') throw badInput(`${where(path)}must be true or false, got ${show(value)}`);
      return value;
    case 'bytes':
      if (typeof value !== 'string' || !BASE64.test(value)) throw badInput(`${where(path)}must be base64 text, got ${show(value)}`);
      return Buffer.from(value.replace(/-/g, '+').replace(/_/g, '/'), 'base64');
    case 'double':
    case 'float':
      if (typeof value === 'number') return value;
      if (value === 'NaN') return NaN;
      if (value === 'Infinity') return Infinity;
      if (value === '-Infinity') return -Infinity;
      if (typeof value === 'string' && value.trim() !== '' && Number.isFinite(Number(value))) return Number(value);
      throw badInput(`${where(path)}must be a number, got ${show(value)}`);
  }
  const unsigned = UNSIGNED_TYPES.has(type);
  if (INT32_TYPES.has(type)) {
    const n = typeof value === 'string' && /^-?[0-9]+$/.test(value) ? Number(value) : value;
    const [min, max] = unsigned ? INT32_RANGE.unsigned : INT32_RANGE.signed;
    if (typeof n !== 'number' || !Number.isInteger(n) || n < min || n > max)
      throw badInput(`${where(path)}must be a whole number from ${min} to ${max} (${type}), got ${show(value)}`);
    return n;
  }
  if (LONG_TYPES.has(type)) {
    const text = typeof value === 'number' && Number.isSafeInteger(value) ? String(value) : value;
    const [min, max] = unsigned ? INT64_RANGE.unsigned : INT64_RANGE.signed;
    if (typeof text !== 'string' || !/^-?[0-9]+$/.test(text) || BigInt(text) < min || BigInt(text) > max) {
      throw badInput(`${where(path)}must be a whole number from ${min} to ${max} as a string (${type}), got ${show(value)}`);
    }
    return Long.fromString(text, unsigned);
  }
  throw badInput(`${where(path)}has an unsupported type ${type}`);
}

/** Map keys are object keys (strings) in JSON; checked against the key type. */
function mapKeyOf(keyType: string, key: string, path: string): string {
  if (keyType === 'string') return key;
  if (keyType === 'bool') {
    if (key !== 'true' && key !== 'false') throw badInput(`${where(path)}map key must be "true" or "false"`);
    // protobufjs writes a bool key with `key ? 1 : 0` on the string: "" is the only falsy spelling.
    return key === 'true' ? 'true' : '';
  }
  scalarOf(keyType, key, path);
  return key;
}

/** The proto3 JSON forms of the well-known types; undefined for any other message. */
function wellKnownOf(type: protobuf.Type, value: unknown, path: string): Plain | undefined {
  const name = type.fullName;
  const wrapped = WRAPPER_TYPES[name];
  if (wrapped) return { value: scalarOf(wrapped, value, path) };
  switch (name) {
    case '.google.protobuf.Timestamp':
      return timestampOf(value, path);
    case '.google.protobuf.Duration':
      return durationOf(value, path);
    case '.google.protobuf.Struct':
      if (!isPlainObject(value)) throw badInput(`${where(path)}must be an object, got ${show(value)}`);
      return structOf(value);
    case '.google.protobuf.Value':
      return valueOf(value);
    case '.google.protobuf.ListValue':
      if (!Array.isArray(value)) throw badInput(`${where(path)}must be an array, got ${show(value)}`);
      return { values: value.map(valueOf) };
    case '.google.protobuf.FieldMask':
      if (typeof value !== 'string') throw badInput(`${where(path)}must be a comma-separated string of paths, got ${show(value)}`);
      return { paths: value === '' ? [] : value.split(',').map((p) => p.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`)) };
  }
  return undefined;
}

function structOf(value: Plain): Plain {
  return { fields: Object.fromEntries(Object.entries(value).map(([k, v]) => [k, valueOf(v)])) };
}

function valueOf(value: unknown): Plain {
  if (value === null || value === undefined) return { null_value: 0 };
  if (typeof value === 'number') return { number_value: value };
  if (typeof value === 'string') return { string_value: value };
  if (typeof value === 'boolean') return { bool_value: value };
  if (Array.isArray(value)) return { list_value: { values: value.map(valueOf) } };
  return { struct_value: structOf(value as Plain) };
}

const RFC3339 = /^(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2})(?:\.(\d{1,9}))?(Z|[+-]\d{2}:\d{2})$/i;

function timestampOf(value: unknown, path: string): Plain {
  const m = typeof value === 'string' ? RFC3339.exec(value) : null;
  const ms = m ? Date.parse(`${m[1]}${m[3]}`) : NaN;
  if (!m || Number.isNaN(ms)) throw badInput(`${where(path)}must be an RFC 3339 timestamp (e.g. "2024-01-02T03:04:05Z"), got ${show(value)}`);
  return { seconds: Long.fromString(String(Math.floor(ms / 1000)), false), nanos: Number((m[2] ?? '').padEnd(9, '0')) };
}

function durationOf(value: unknown, path: string): Plain {
  const m = typeof value === 'string' ? /^(-)?(\d+)(?:\.(\d{1,9}))?s$/.exec(value) : null;
  if (!m) throw badInput(`${where(path)}must be a duration like "1.5s", got ${show(value)}`);
  const sign = m[1] ? -1 : 1;
  const nanos = Number((m[3] ?? '').padEnd(9, '0'));
  return { seconds: Long.fromString(`${m[1] ?? ''}${m[2] ?? '0'}`, false), nanos: sign * nanos };
}

function where(path: string): string {
  return path ? `argument '${path}' ` : 'the arguments ';
}
