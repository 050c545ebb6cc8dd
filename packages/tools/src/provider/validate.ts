import { MCP_TRANSPORTS, type McpTransportKind } from '@hookyard/core';
import { TOOL_SEPARATOR } from './naming';

const isPlainObject = (v: unknown): v is Record<string, unknown> => v !== null && typeof v === 'object' && !Array.isArray(v);
const show = (v: unknown) => JSON.stringify(v) ?? String(v);
const CONTROL = /[\0-\x1f\x7f]/;

/** A provider name may not contain the separator: the first `__` of a tool name must end the provider part. */
export function providerNameViolation(name: string): string | undefined {
  return name.includes(TOOL_SEPARATOR) ? `name must not contain '${TOOL_SEPARATOR}' (it separates a provider from its operations in tool names)` : undefined;
}

/** `injected`: an object of argument names to the values the runtime applies. */
export function checkInjected(value: unknown, errors: string[]): Record<string, unknown> | undefined {
  if (value === undefined) return undefined;
  if (!isPlainObject(value)) {
    errors.push(`injected must be an object of argument names to values, got ${show(value)}`);
    return undefined;
  }
  const before = errors.length;
  for (const [k, v] of Object.entries(value)) {
    if (k === '' || CONTROL.test(k)) errors.push(`injected: ${show(k)} is not an argument name`);
    if (v === undefined || v === null) errors.push(`injected.${k} must have a value, got ${show(v)}`);
  }
  return errors.length > before ? undefined : { ...value };
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
