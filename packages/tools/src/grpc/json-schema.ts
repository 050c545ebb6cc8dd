import * as protobuf from 'protobufjs';
import type { JsonSchema } from '../types';
import { INT32_TYPES, LONG_TYPES, UNSIGNED_TYPES, WRAPPER_TYPES, jsonNameOf, mapKeyType } from './json-names';

/**
 * The JSON Schema of a message as proto3 JSON writes it: JSON field names,
 * enums as their names, 64-bit integers as decimal strings, bytes as base64,
 * repeated fields as arrays, maps as objects, the well-known types in their
 * JSON forms. Unknown properties are refused (as proto3 JSON parsers do). A
 * message that contains itself is described once; the inner occurrence is a
 * plain object, so the schema stays finite.
 */
export function messageSchema(type: protobuf.Type): JsonSchema {
  return messageOf(type, []);
}

function messageOf(type: protobuf.Type, stack: readonly string[]): JsonSchema {
  const wkt = wellKnownSchema(type);
  if (wkt) return wkt;
  const name = type.fullName.replace(/^\./, '');
  if (stack.includes(type.fullName)) return { type: 'object', description: `${name} (recursive; not expanded)` };
  const inner = [...stack, type.fullName];
  const properties: Record<string, JsonSchema> = {};
  const required: string[] = [];
  for (const field of type.fieldsArray) {
    const schema = fieldOf(field, inner);
    const group = field.partOf;
    // proto3 `optional` lives in a synthetic oneof named `_<field>`; only real oneofs are worth telling.
    if (group && !group.name.startsWith('_'))
      schema.description = `oneof ${group.name}: set at most one of ${group.oneof.map((n) => JSON.stringify(jsonNameOf(type.fields[n] as protobuf.Field))).join(', ')}`;
    properties[jsonNameOf(field)] = schema;
    if (field.required) required.push(jsonNameOf(field));
  }
  const out: JsonSchema = { type: 'object', properties, additionalProperties: false };
  if (required.length > 0) out.required = required;
  if (stack.length === 0) out.description = name;
  return out;
}

function fieldOf(field: protobuf.Field, stack: readonly string[]): JsonSchema {
  if (field.map) {
    const keyType = mapKeyType(field);
    const out: JsonSchema = { type: 'object', additionalProperties: singleOf(field, stack) };
    if (keyType !== 'string') out.propertyNames = { pattern: keyType === 'bool' ? '^(true|false)$' : UNSIGNED_TYPES.has(keyType) ? '^[0-9]+$' : '^-?[0-9]+$' };
    return out;
  }
  if (field.repeated) return { type: 'array', items: singleOf(field, stack) };
  return singleOf(field, stack);
}

function singleOf(field: protobuf.Field, stack: readonly string[]): JsonSchema {
  const resolved = field.resolvedType;
  if (resolved instanceof protobuf.Type) return messageOf(resolved, stack);
  if (resolved instanceof protobuf.Enum) {
    if (resolved.fullName === '.google.protobuf.NullValue') return { type: 'null' };
    return { type: 'string', enum: Object.keys(resolved.values) };
  }
  return scalarSchema(field.type);
}

export function scalarSchema(type: string): JsonSchema {
  if (LONG_TYPES.has(type)) {
    return UNSIGNED_TYPES.has(type)
      ? { type: 'string', pattern: '^[0-9]+$', description: `${type} as a decimal string` }
      : { type: 'string', pattern: '^-?[0-9]+$', description: `${type} as a decimal string` };
  }
  if (INT32_TYPES.has(type)) {
    return UNSIGNED_TYPES.has(type) ? { type: 'integer', minimum: 0, maximum: 2 ** 32 - 1 } : { type: 'integer', minimum: -(2 ** 31), maximum: 2 ** 31 - 1 };
  }
  switch (type) {
    case 'double':
    case 'float':
      return { type: 'number' };
    case 'bool':
      return { type: 'boolean' };
    case 'bytes':
      return { type: 'string', contentEncoding: 'base64' };
    default:
      return { type: 'string' };
  }
}

function wellKnownSchema(type: protobuf.Type): JsonSchema | undefined {
  const wrapped = WRAPPER_TYPES[type.fullName];
  if (wrapped) return scalarSchema(wrapped);
  switch (type.fullName) {
    case '.google.protobuf.Timestamp':
      return { type: 'string', format: 'date-time' };
    case '.google.protobuf.Duration':
      return { type: 'string', pattern: '^-?[0-9]+(\\.[0-9]{1,9})?s$' };
    case '.google.protobuf.Struct':
      return { type: 'object' };
    case '.google.protobuf.Value':
      return {};
    case '.google.protobuf.ListValue':
      return { type: 'array' };
    case '.google.protobuf.FieldMask':
      return { type: 'string' };
    case '.google.protobuf.Empty':
      return { type: 'object', properties: {}, additionalProperties: false };
  }
  return undefined;
}
