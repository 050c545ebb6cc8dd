import type { JqField, JqTemplate } from '@hookyard/core';
import { compileErrorLines } from '@hookyard/core';
import { resolveJqField, topLevelAssignment, type JqEngine } from '@hookyard/jq';

/** What a jq field check needs: the engine and the stored templates. */
export interface JqFieldDeps {
  jq: JqEngine;
  getTemplate(id: string): Promise<JqTemplate | null>;
}

/** Variables every hook jq field may use: the open interactions on the subject as `$parked`, its state document as `$state`. */
export const HOOK_JQ_VARS: readonly string[] = ['parked', 'state'];

const SHAPE = `must be {"content": "<jq>"} or {"id": "<stored template id>", "kwargs": {...}}`;

/**
 * Checks one jq field (`{content}` inline or `{id, kwargs}` stored) and
 * answers one line per miss, naming the field as `at`. Inline jq and the
 * stored template's jq are both compiled; a template's kwargs bind as `$name`.
 */
export async function checkJqField(value: unknown, at: string, deps: JqFieldDeps, vars: readonly string[] = HOOK_JQ_VARS): Promise<string[]> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return [`${at} ${SHAPE}`];
  const field = value as Record<string, unknown>;
  const keys = Object.keys(field);
  if ('content' in field) {
    if (typeof field.content !== 'string') return [`${at}.content must be a string of jq`];
    const extra = keys.filter((k) => k !== 'content');
    if (extra.length) return [`${at} has unknown field(s) ${extra.map((k) => `'${k}'`).join(', ')}; ${SHAPE}`];
    return compileLine(deps.jq, field.content, vars, `${at}`);
  }
  if ('id' in field) {
    if (typeof field.id !== 'string' || field.id === '') return [`${at}.id must be a non-empty string`];
    const extra = keys.filter((k) => k !== 'id' && k !== 'kwargs');
    if (extra.length) return [`${at} has unknown field(s) ${extra.map((k) => `'${k}'`).join(', ')}; ${SHAPE}`];
    const kwargs = field.kwargs ?? {};
    if (kwargs === null || typeof kwargs !== 'object' || Array.isArray(kwargs)) return [`${at}.kwargs must be an object`];
    const template = await deps.getTemplate(field.id);
    if (!template) return [`stored id '${field.id}' at ${at} is not a stored template`];
    return compileLine(deps.jq, template.content, [...vars, ...Object.keys(kwargs)], `${at} (stored id '${field.id}')`);
  }
  return [`${at} ${SHAPE}`];
}

async function compileLine(jq: JqEngine, expr: string, vars: readonly string[], at: string): Promise<string[]> {
  try {
    await jq.check(expr, vars);
    return [];
  } catch (err) {
    return compileErrorLines(at, err);
  }
}

/**
 * The `$name` variables a stored template's text mentions. A template is
 * compiled on write with these declared, because its kwargs are only known
 * where a hook uses it (and are checked there).
 */
export function templateVars(content: string): string[] {
  const names = new Set<string>();
  for (const m of content.matchAll(/\$([A-Za-z_][A-Za-z0-9_]*)/g)) {
    const name = m[1]!;
    if (name !== 'ENV' && name !== '__loc__') names.add(name);
  }
  return [...names];
}

/**
 * The line refusing a condition (one that compiles) whose top level is an
 * assignment: `.action = "opened"` outputs the event itself, which is truthy,
 * so the hook would fire on every event. Names the likely fix.
 */
export async function conditionAssignmentLine(value: unknown, deps: JqFieldDeps, vars: readonly string[] = HOOK_JQ_VARS): Promise<string | undefined> {
  const { expr, vars: kwargs } = await resolveJqField(value as JqField, deps.getTemplate);
  const found = topLevelAssignment(expr, [...vars, ...Object.keys(kwargs)]);
  if (!found) return undefined;
  const where = 'id' in (value as object) ? `condition (stored id '${(value as { id: string }).id}')` : 'condition';
  const why = `${where} is an assignment (${found.op}), which outputs the updated event: always true, so the hook would fire on every event`;
  return found.suggestion !== undefined ? `${why}; did you mean \`${found.suggestion}\`?` : `${why}; a condition compares (==, !=, <, <=, >, >=)`;
}
