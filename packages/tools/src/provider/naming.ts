import { createHash } from 'node:crypto';
import { NAME_MAX_LENGTH } from '@hookyard/core';

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
 * `<provider>__<slug>`, cut to NAME_MAX_LENGTH with a short hash of the raw
 * name so two long names that share a prefix stay distinct and stable.
 */
export function providerToolName(provider: string, raw: string): string {
  const full = `${provider}${TOOL_SEPARATOR}${nameSlug(raw)}`;
  if (full.length <= NAME_MAX_LENGTH) return full;
  const hash = createHash('sha256').update(raw).digest('hex').slice(0, 8);
  return `${full.slice(0, NAME_MAX_LENGTH - hash.length - 1).replace(/[_-]+$/, '')}_${hash}`;
}

/** The provider part of a tool name; undefined when the name has no separator. */
export function providerOf(toolName: string): string | undefined {
  const at = toolName.indexOf(TOOL_SEPARATOR);
  return at > 0 ? toolName.slice(0, at) : undefined;
}
