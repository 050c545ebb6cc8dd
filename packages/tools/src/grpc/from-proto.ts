import * as protobuf from 'protobufjs';
import { LONG_TYPES, WRAPPER_TYPES, jsonNameOf, mapKeyType } from './json-names';

type Plain = Record<string, unknown>;

const LongBits = protobuf.util.LongBits as unknown as { fromHash(hash: string): { toLong(unsigned: boolean): { toString(): string } } };

/**
 * Response bytes as proto3 JSON, with unpopulated fields emitted: JSON field
 * names, enums by name, 64-bit integers as strings, bytes as base64, scalar
 * defaults included, an unset message field `null`; an unset oneof member or
 * proto3 `optional` field is left out (as protojson's EmitUnpopulated does).
 */
export function decodeResponse(type: protobuf.Type, bytes: Uint8Array): unknown {
  return jsonOfMessage(type, type.decode(bytes) as unknown as Plain);
}

function jsonOfMessage(type: protobuf.Type, msg: Plain): unknown {
  const wkt = wellKnownJson(type, msg);
  if (wkt !== undefined) return wkt;
  const out: Plain = {};
  for (const field of type.fieldsArray) {
    const set = Object.hasOwn(msg, field.name) && msg[field.name] !== null && msg[field.name] !== undefined;
    if (field.partOf && !set) continue;
    out[jsonNameOf(field)] = set || field.repeated || field.map || !(field.resolvedType instanceof protobuf.Type) ? jsonOfField(field, msg[field.name]) : null;
  }
  return out;
}

function jsonOfField(field: protobuf.Field, value: unknown): unknown {
  if (field.map) {
    const keyType = mapKeyType(field);
    const out: Plain = {};
    for (const [k, v] of Object.entries((value ?? {}) as Plain)) out[mapKeyJson(keyType, k)] = jsonOfSingle(field, v);
    return out;
  }
  if (field.repeated) return ((value ?? []) as unknown[]).map((v) => jsonOfSingle(field, v));
  return jsonOfSingle(field, value);
}

function jsonOfSingle(field: protobuf.Field, value: unknown): unknown {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Type) return jsonOfMessage(resolved, (value ?? {}) as Plain);
  if (resolved instanceof protobuf.Enum) {
    if (resolved.fullName === '.google.protobuf.NullValue') return null;
    const n = typeof value === 'number' ? value : 0;
    // A number the schema does not name (a newer server) stays a number rather than being lost.
    return resolved.valuesById[n] ?? n;
  }
  return scalarJson(field.type, value);
}

/** An int64 as protobufjs hands it over (a Long with its own decimal toString, a number or a string), as decimal text. */
function longText(value: unknown): string {
  if (value === undefined || value === null) return '0';
  return (value as { toString(): string }).toString();
}

export function scalarJson(type: string, value: unknown): unknown {
  if (LONG_TYPES.has(type)) return longText(value);
  switch (type) {
    case 'bytes':
      return Buffer.from((value ?? new Uint8Array()) as Uint8Array).toString('base64');
    case 'double':
      return floatJson(typeof value === 'number' ? value : 0, false);
    case 'float':
      return floatJson(typeof value === 'number' ? value : 0, true);
    case 'bool':
      return value === true;
    case 'string':
      return typeof value === 'string' ? value : '';
    default:
      return typeof value === 'number' ? value : 0;
  }
}

/** Non-finite numbers are strings in proto3 JSON; a float32 is printed with the fewest digits that read back the same. */
function floatJson(n: number, single: boolean): unknown {
  if (Number.isNaN(n)) return 'NaN';
  if (n === Infinity) return 'Infinity';
  if (n === -Infinity) return '-Infinity';
  if (!single) return n;
  for (let p = 1; p <= 9; p++) {
    const shorter = Number(n.toPrecision(p));
    if (Math.fround(shorter) === n) return shorter;
  }
  return n;
}

/** protobufjs keys a map of 64-bit keys by an 8-character hash of the Long; JSON wants the decimal. */
function mapKeyJson(keyType: string, key: string): string {
  if (LONG_TYPES.has(keyType) && key.length === 8 && !/^-?[0-9]+$/.test(key)) {
    return LongBits.fromHash(key)
      .toLong(keyType === 'uint64' || keyType === 'fixed64')
      .toString();
  }
  return key;
}

function wellKnownJson(type: protobuf.Type, msg: Plain): unknown {
  const name = type.fullName;
  const wrapped = WRAPPER_TYPES[name];
  if (wrapped) return scalarJson(wrapped, msg.value);
  switch (name) {
    case '.google.protobuf.Timestamp':
      return timestampJson(Number(longText(msg.seconds)), Number(msg.nanos ?? 0));
    case '.google.protobuf.Duration':
      return durationJson(BigInt(longText(msg.seconds)), Number(msg.nanos ?? 0));
    case '.google.protobuf.Struct':
      return Object.fromEntries(Object.entries((msg.fields ?? {}) as Record<string, Plain>).map(([k, v]) => [k, valueJson(v)]));
    case '.google.protobuf.Value':
      return valueJson(msg);
    case '.google.protobuf.ListValue':
      return ((msg.values ?? []) as Plain[]).map(valueJson);
    case '.google.protobuf.FieldMask':
      return ((msg.paths ?? []) as string[]).map((p) => p.replace(/_([a-z])/g, (_m, c: string) => c.toUpperCase())).join(',');
  }
  return undefined;
}

function valueJson(v: Plain): unknown {
  if (v.struct_value)
    return Object.fromEntries(Object.entries(((v.struct_value as Plain).fields ?? {}) as Record<string, Plain>).map(([k, x]) => [k, valueJson(x)]));
  if (v.list_value) return (((v.list_value as Plain).values ?? []) as Plain[]).map(valueJson);
  if (Object.hasOwn(v, 'number_value')) return v.number_value;
  if (Object.hasOwn(v, 'string_value')) return v.string_value;
  if (Object.hasOwn(v, 'bool_value')) return v.bool_value;
  return null;
}

function fraction(nanos: number): string {
  if (nanos === 0) return '';
  const digits = String(nanos).padStart(9, '0');
  if (nanos % 1_000_000 === 0) return `.${digits.slice(0, 3)}`;
  if (nanos % 1_000 === 0) return `.${digits.slice(0, 6)}`;
  return `.${digits}`;
}

function timestampJson(seconds: number, nanos: number): string {
  return `${new Date(seconds * 1000).toISOString().slice(0, 19)}${fraction(nanos)}Z`;
}

function durationJson(seconds: bigint, nanos: number): string {
  const negative = seconds < 0n || nanos < 0;
  const abs = seconds < 0n ? -seconds : seconds;
  return `${negative ? '-' : ''}${abs}${fraction(Math.abs(nanos))}s`;
}
