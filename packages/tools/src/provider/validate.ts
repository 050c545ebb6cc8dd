import { MCP_TRANSPORTS, type McpTransportKind, type SecretScope } from '@hookyard/core';
import { literalCredentialLine, isCredentialName, secretValueViolation } from '../secret-values';
import { TOOL_SEPARATOR } from './naming';

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const show = (v: unknown) => JSON.stringify(v) ?? String(v);
// eslint-disable-next-line no-control-regex -- control characters are what it finds
const CONTROL = /[\0-\x1f\x7f]/;

/** A provider name may not contain the separator: the first `__` of a tool name must end the provider part. */
export function providerNameViolation(name: string): string | undefined {
  return name.includes(TOOL_SEPARATOR) ? `name must not contain '${TOOL_SEPARATOR}' (it separates a provider from its operations in tool names)` : undefined;
}

/**
 * `injected`: an object of argument names to the values the runtime applies.
 * A value is any JSON value or a secret reference `{"secret":"env:NAME"}`
 * (an object whose only field is `secret` is always read as a reference);
 * under a credential-looking name only a reference is accepted.
 */
export function checkInjected(value: unknown, errors: string[], scope?: SecretScope): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  if (!isPlainObject(value)) {
    // The values are most likely credentials: show the shape, not the content.
    errors.push(`injected must be an object of argument names to values, got ${Array.isArray(value) ? 'a list' : typeof value}`);
    return undefined;
  }
  const before = errors.length;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(value)) {
    const at = `injected.${k}`;
    if (k === '' || CONTROL.test(k)) errors.push(`injected: ${show(k)} is not an argument name`);
    if (v === undefined || v === null) errors.push(`${at} must have a value, got ${show(v)}`);
    else if (isPlainObject(v) && 'secret' in v) {
      const miss = secretValueViolation(at, v, scope);
      if (miss) errors.push(miss);
      else out[k] = { secret: v.secret as string };
    } else if (isCredentialName(k)) errors.push(literalCredentialLine(at));
    else out[k] = v;
  }
  return errors.length > before ? undefined : out;
}

/** `operations`: a non-empty allowlist (`*`, names, `!name`) of operation ids or tool-name parts. */
export function checkOperations(value: unknown, errors: string[]): string[] | undefined {
  if (value === undefined) return undefined;
  if (!Array.isArray(value) || value.length === 0) {
    errors.push(`operations must be a non-empty list of operation names (*, name, !name), got ${show(value)}`);
    return undefined;
  }
  const before = errors.length;
  value.forEach((entry, i) => {
    if (typeof entry !== 'string' || entry.trim() === '' || entry === '!' || CONTROL.test(entry)) {
      errors.push(`operations[${i}] ${show(entry)} must be *, an operation name or !name`);
    }
  });
  return errors.length > before ? undefined : [...(value as string[])];
}

export interface McpFields {
  transport: McpTransportKind;
  command?: string;
  args?: string[];
}

/**
 * The MCP-specific fields: `transport`; with stdio a `command` (in the
 * allowlist when one is given) and optional `args`, and no `endpoint` or
 * `headers`; with sse and streamable-http no `command` or `args` (the
 * endpoint is checked by the caller).
 */
export function checkMcpFields(input: Record<string, unknown>, stdioAllow: readonly string[] | undefined, errors: string[]): McpFields | undefined {
  const before = errors.length;
  const transport = input.transport;
  if (typeof transport !== 'string' || !(MCP_TRANSPORTS as readonly string[]).includes(transport)) {
    errors.push(`transport must be one of ${MCP_TRANSPORTS.join(', ')}, got ${show(transport)}`);
    return undefined;
  }
  const fields: McpFields = { transport: transport as McpTransportKind };
  if (transport === 'stdio') {
    if (input.endpoint !== undefined) errors.push('endpoint does not apply to transport stdio (the server is the command)');
    if (input.headers !== undefined) errors.push('headers do not apply to transport stdio');
    const command = input.command;
    if (typeof command !== 'string' || command.trim() === '' || CONTROL.test(command)) {
      errors.push(`command must be the command to spawn (listed in HOOKS_MCP_STDIO_ALLOW), got ${show(command)}`);
    } else if (stdioAllow && !stdioAllow.includes(command)) {
      errors.push(`command ${show(command)} is not in HOOKS_MCP_STDIO_ALLOW`);
    } else fields.command = command;
    if (input.args !== undefined) {
      if (!Array.isArray(input.args)) errors.push(`args must be a list of strings, got ${show(input.args)}`);
      else {
        input.args.forEach((a, i) => {
          if (typeof a !== 'string' || a.includes('\0')) errors.push(`args[${i}] must be a string without NUL, got ${show(a)}`);
        });
        fields.args = [...(input.args as string[])];
      }
    }
  } else {
    if (input.command !== undefined) errors.push(`command applies only to transport stdio, not ${transport}`);
    if (input.args !== undefined) errors.push(`args apply only to transport stdio, not ${transport}`);
  }
  return errors.length > before ? undefined : fields;
}
