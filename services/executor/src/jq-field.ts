import { notFound } from '@hookyard/core';
import type { JqField, JqTemplate } from '@hookyard/core';

/**
 * Turns a jq field into an expression and its variables: inline content as is,
 * a stored template by id with its kwargs bound as `$name`.
 * TODO: switch to `resolveJqField` of @hookyard/jq once it lands.
 */
export async function resolveField(
  field: JqField,
  getTemplate: (id: string) => Promise<JqTemplate | null>,
): Promise<{ expr: string; vars: Record<string, unknown> }> {
  if ('content' in field) return { expr: field.content, vars: {} };
  const template = await getTemplate(field.id);
  if (!template) throw notFound(`stored template '${field.id}' is not a stored template`);
  return { expr: template.content, vars: { ...(field.kwargs ?? {}) } };
}
