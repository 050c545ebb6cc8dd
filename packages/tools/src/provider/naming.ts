import { createHash } from 'node:crypto';
import { TOOL_NAME_MAX_LENGTH } from '@hookyard/core';

/**
 * Joins a registered provider and one of its operations into a tool name:
 * `<provider>__<operation>`. Tool names must match NAME_PATTERN
 * (`^[a-z0-9][a-z0-9_-]*$`, as hook `tool` fields and allowlists expect), so
 * `.` is out; a provider name may not contain `__` (refused on write), which
 * makes the first `__` the split point.
 */
export const TOOL_SEPARATOR = '__';

/**
 * An operation id or MCP tool name as a name part: camelCase split with `_`,
 * lowercased, every run of other characters one `_`, trimmed; `op` when
 * nothing is left. `getPet` -> `get_pet`, `GET /pets/{petId}` -> `get_pets_pet_id`.
 */
export function nameSlug(raw: string): string {
  const slug = raw
    .replace(/([a-z0-9])([A-Z])/g, '$1_$2')
    .toLowerCase()
    .replace(/[^a-z0-9-]+/g, '_')
    .replace(/^[_-]+|[_-]+$/g, '');
  return slug === '' ? 'op' : slug;
}

/**
 * `<provider>__<slug>`, fitted to TOOL_NAME_MAX_LENGTH (see fitToolName) so
 * every model API takes it.
 */
export function providerToolName(provider: string, raw: string): string {
  return fitToolName(`${provider}${TOOL_SEPARATOR}${nameSlug(raw)}`, raw);
}

/**
 * The tool name of a discovered tool: `<provider>__<part>`, fitted as
 * providerToolName, where the part is the tool's own `slug` when its kind
 * names tools its own way (gRPC methods), else nameSlug of its key. The
 * hash of a cut name is always taken over the key.
 */
export function discoveredToolName(provider: string, tool: { key: string; slug?: string }): string {
  return fitToolName(`${provider}${TOOL_SEPARATOR}${tool.slug ?? nameSlug(tool.key)}`, tool.key);
}

/**
 * A tool name of at most TOOL_NAME_MAX_LENGTH characters: as it is when it
 * fits, else cut and ended with `_` and the first 8 hex digits of the SHA-256
 * of `raw` (the service's own name for the tool). It depends on nothing but
 * its inputs, so every replica and every restart names a tool alike, and two
 * long names that share a prefix stay distinct. The provider part is at most
 * PROVIDER_NAME_MAX_LENGTH (refused on write), so a cut never reaches it.
 */
export function fitToolName(full: string, raw: string): string {
  if (full.length <= TOOL_NAME_MAX_LENGTH) return full;
  const hash = createHash('sha256').update(raw).digest('hex').slice(0, 8);
  return `${full.slice(0, TOOL_NAME_MAX_LENGTH - hash.length - 1).replace(/[_-]+$/, '')}_${hash}`;
}

/** The provider part of a tool name; undefined when the name has no separator. */
export function providerOf(toolName: string): string | undefined {
  const at = toolName.indexOf(TOOL_SEPARATOR);
  return at > 0 ? toolName.slice(0, at) : undefined;
}
