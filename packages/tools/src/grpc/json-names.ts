import type * as protobuf from 'protobufjs';

/** protoc's json_name rule: drop each `_` and capitalize the letter after it (`user_id` -> `userId`). */
export function protoJsonName(name: string): string {
  let out = '';
  let upper = false;
  for (const ch of name) {
    if (ch === '_') upper = true;
    else {
      out += upper ? ch.toUpperCase() : ch;
      upper = false;
    }
  }
  return out;
}

/** The proto3 JSON name of a field: an explicit `json_name` option, else the derived one. */
export function jsonNameOf(field: protobuf.Field): string {
  const explicit: unknown = field.options?.json_name;
  return typeof explicit === 'string' ? explicit : protoJsonName(field.name);
}

/** 64-bit integer field types: strings in proto3 JSON. */
export const LONG_TYPES: ReadonlySet<string> = new Set(['int64', 'uint64', 'sint64', 'fixed64', 'sfixed64']);
export const UNSIGNED_TYPES: ReadonlySet<string> = new Set(['uint32', 'fixed32', 'uint64', 'fixed64']);
export const INT32_TYPES: ReadonlySet<string> = new Set(['int32', 'sint32', 'sfixed32', 'uint32', 'fixed32']);

/** The well-known types proto3 JSON writes in a special form, by fully-qualified name. */
export const WRAPPER_TYPES: Readonly<Record<string, string>> = {
  '.google.protobuf.DoubleValue': 'double',
  '.google.protobuf.FloatValue': 'float',
  '.google.protobuf.Int64Value': 'int64',
  '.google.protobuf.UInt64Value': 'uint64',
  '.google.protobuf.Int32Value': 'int32',
  '.google.protobuf.UInt32Value': 'uint32',
  '.google.protobuf.BoolValue': 'bool',
  '.google.protobuf.StringValue': 'string',
  '.google.protobuf.BytesValue': 'bytes',
};

/** The key type of a map field (`string`, `int64`, `bool`, …). */
export function mapKeyType(field: protobuf.Field): string {
  return (field as unknown as { keyType: string }).keyType;
}
