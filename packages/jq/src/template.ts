import { badInput } from '@hookyard/core';
import type { JqField, JqTemplate } from '@hookyard/core';

function shown(v: unknown): string {
  const s = JSON.stringify(v) ?? String(v);
  return s.length > 200 ? `${s.slice(0, 200)}…` : s;
}

/**
 * The expression and variables a jq field stands for: inline `{content}` as is,
 * or a stored template `{id, kwargs}` whose kwargs bind as `$name`.
 */
export async function resolveJqField(
  field: JqField,
  getTemplate: (id: string) => Promise<JqTemplate | null>,
): Promise<{ expr: string; vars: Record<string, unknown> }> {
  const f = field as Partial<{ content: unknown; id: unknown; kwargs: unknown }> | null;
  if (f && typeof f === 'object' && typeof f.content === 'string') return { expr: f.content, vars: {} };
  if (f && typeof f === 'object' && typeof f.id === 'string') {
    const kwargs = f.kwargs ?? {};
    if (typeof kwargs !== 'object' || kwargs === null || Array.isArray(kwargs)) {
      throw badInput(`template kwargs must be an object; got ${shown(kwargs)}`);
    }
    const template = await getTemplate(f.id);
    if (!template) throw badInput(`stored id '${f.id}' is not a stored template`);
    return { expr: template.content, vars: { ...(kwargs as Record<string, unknown>) } };
  }
  throw badInput(`a jq field is {"content": "<jq>"} or {"id": "<template>", "kwargs": {...}}; got ${shown(field)}`);
}
