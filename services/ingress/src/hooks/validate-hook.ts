import {
  ALLOWLIST_ENTRY_PATTERN,
  JQ_FIELDS,
  allows,
  nameViolation,
  nearestName,
  pointerViolation,
  STATE_TEMPLATE_NAMES,
  type ApprovalRule,
  type Hook,
  type HookSubject,
  type JqField,
} from '@hookyard/core';
import { hookAllowlist } from '@hookyard/plan';
import { validateApprovalRules, type ToolRepo } from '@hookyard/tools';
import { checkJqField, conditionAssignmentLine, type JqFieldDeps } from './jq-fields';
import type { SchemaChecker } from './schema-checker';

export interface ValidateHookDeps extends JqFieldDeps {
  tools: ToolRepo;
  schemas: SchemaChecker;
  /** The deployment's tool allowlist (settings.toolsAllow); the hook's own list can only narrow it. */
  toolsAllow: readonly string[];
  /** Epoch ms, stamped as created_at/updated_at (the caller keeps an older created_at on replace). */
  now: number;
}

export type ValidateHookResult = { ok: true; hook: Hook } | { ok: false; errors: string[] };

const KNOWN_FIELDS = new Set<string>(['name', 'topic', 'tool', 'tool_kwargs', ...JQ_FIELDS, 'subject', 'tools_allow', 'approval', 'description']);
/** Server-owned fields: echoed back by GET, so a GET-edit-POST round trip is not refused; ignored on input. */
const SERVER_FIELDS = new Set(['created_at', 'updated_at']);
const SUBJECT_FIELDS = new Set(['scope', 'kind', 'key_expr', 'attach', 'templates']);
/** Server-owned: stamped when the declaration's templates are attached; ignored on input. */
const SUBJECT_SERVER_FIELDS = new Set(['declaration_version']);
const ALLOW_ENTRY = ALLOWLIST_ENTRY_PATTERN;

/**
 * Checks a hook registration and collects EVERY miss as one line (never stops
 * at the first). Names are never sanitized: a bad name or topic is a line
 * naming the field and the pattern. The tool must be registered, its static
 * kwargs must fit its JSON Schema, references inside the kwargs (tool_names,
 * expression properties) must resolve, every jq field must compile, and the
 * tool must pass the hook's allowlist intersected with the deployment's.
 */
export async function validateHook(input: unknown, deps: ValidateHookDeps): Promise<ValidateHookResult> {
  if (input === null || typeof input !== 'object' || Array.isArray(input)) {
    return { ok: false, errors: ['the hook must be a JSON object'] };
  }
  const h = input as Record<string, unknown>;
  const errors: string[] = [];
  const miss = (line: string | undefined) => line !== undefined && errors.push(line);

  for (const key of Object.keys(h)) {
    if (!KNOWN_FIELDS.has(key) && !SERVER_FIELDS.has(key)) errors.push(`unknown field '${key}'${didYouMean(key, KNOWN_FIELDS)}`);
  }
  miss(nameViolation('name', h.name));
  miss(nameViolation('topic', h.topic));
  if (h.description !== undefined && typeof h.description !== 'string') errors.push('description must be a string');

  const known = new Set(await deps.tools.names());
  const toolOk = typeof h.tool === 'string' && h.tool !== '';
  if (!toolOk) errors.push('tool must be a non-empty string naming a registered tool');
  else if (!known.has(h.tool as string)) {
    // Asked for by name, a tool that may exist but cannot be described now (no executor answered) throws: 503, not "not registered".
    await deps.tools.tools(h.tool as string);
    errors.push(`hook tool '${h.tool as string}' is not a registered tool${didYouMean(h.tool as string, known)}`);
  }
  const tool = toolOk && known.has(h.tool as string) ? (h.tool as string) : undefined;

  const toolsAllow = checkToolsAllow(h.tools_allow, errors);
  if (tool && toolsAllow !== null) {
    // The list a run of this hook is held to (the executor's, through @hookyard/plan).
    if (!allows(hookAllowlist({ tools_allow: toolsAllow }, deps.toolsAllow), tool)) errors.push(`hook tool '${tool}' is not allowed by the tool allowlist`);
  }

  const kwargs = h.tool_kwargs ?? {};
  if (kwargs === null || typeof kwargs !== 'object' || Array.isArray(kwargs)) errors.push('tool_kwargs must be an object');
  else if (tool) errors.push(...(await checkKwargs(tool, kwargs as Record<string, unknown>, h.start_expr !== undefined, known, deps)));

  for (const field of JQ_FIELDS) {
    if (h[field] === undefined) continue;
    const lines = await checkJqField(h[field], field, deps);
    errors.push(...lines);
    // Compiles, but `=` for `==` is true for every event: refused with the fix.
    if (field === 'condition' && lines.length === 0) miss(await conditionAssignmentLine(h[field], deps));
  }
  if (h.subject !== undefined) errors.push(...(await checkSubject(h.subject, deps)));
  // The hook's own approval rules: checked like the deployment's; at run time they can only make a call stricter.
  if (h.approval !== undefined) errors.push(...(await validateApprovalRules(h.approval, 'approval', deps.jq)));

  if (errors.length) return { ok: false, errors };
  const at = new Date(deps.now).toISOString();
  const hook: Hook = {
    name: h.name as string,
    topic: h.topic as string,
    tool: tool!,
    tool_kwargs: kwargs as Record<string, unknown>,
    created_at: at,
    updated_at: at,
  };
  for (const field of JQ_FIELDS) if (h[field] !== undefined) hook[field] = h[field] as JqField;
  if (h.subject !== undefined) hook.subject = h.subject as HookSubject;
  if (toolsAllow) hook.tools_allow = toolsAllow;
  if (h.approval !== undefined) hook.approval = h.approval as ApprovalRule[];
  if (typeof h.description === 'string') hook.description = h.description;
  return { ok: true, hook };
}

/** `; did you mean 'x'?` for a near miss of a known name (a typo), else nothing. */
function didYouMean(word: string, known: Iterable<string>): string {
  const near = nearestName(word, known);
  return near ? `; did you mean '${near}'?` : '';
}

/** The hook's allowlist: undefined when absent, null when malformed (lines added). */
function checkToolsAllow(value: unknown, errors: string[]): string[] | undefined | null {
  if (value === undefined) return undefined;
  if (!Array.isArray(value)) {
    errors.push('tools_allow must be an array of allowlist entries (*, name, !name)');
    return null;
  }
  let ok = true;
  value.forEach((entry, i) => {
    if (typeof entry !== 'string' || !ALLOW_ENTRY.test(entry)) {
      errors.push(`tools_allow[${i}] ${JSON.stringify(entry)} must be *, a tool name or !name`);
      ok = false;
    }
  });
  return ok ? (value as string[]) : null;
}

/**
 * Static kwargs against the tool's schema. With a start_expr the fired kwargs
 * are completed from the payload at fire, so a missing required property is
 * not a miss here (a wrong type still is).
 */
async function checkKwargs(
  tool: string,
  kwargs: Record<string, unknown>,
  hasStartExpr: boolean,
  known: Set<string>,
  deps: ValidateHookDeps,
): Promise<string[]> {
  const lines: string[] = [];
  const schema = await deps.tools.schema(tool);
  if (schema) lines.push(...deps.schemas.check(schema, kwargs, 'tool_kwargs', hasStartExpr));

  const names = kwargs.tool_names;
  if (names !== undefined) {
    if (!Array.isArray(names)) lines.push('tool_kwargs.tool_names must be an array of tool names');
    else
      for (const n of names) {
        if (typeof n !== 'string') lines.push(`tool_kwargs.tool_names entry ${JSON.stringify(n)} must be a string`);
        else if (!known.has(n)) lines.push(`tool_kwargs.tool_names entry '${n}' is not a registered tool${didYouMean(n, known)}`);
      }
  }

  // Properties the tool's schema annotates as jq expressions hold jq fields: check them like the hook's own.
  const props = (schema?.properties ?? {}) as Record<string, Record<string, unknown> | undefined>;
  for (const [key, propSchema] of Object.entries(props)) {
    if (!propSchema || !('x-tai42-expression' in propSchema)) continue;
    const value = kwargs[key];
    if (value !== null && typeof value === 'object' && !Array.isArray(value) && ('id' in value || 'content' in value)) {
      lines.push(...(await checkJqField(value, `tool_kwargs > ${key}`, deps)));
    }
  }
  return lines;
}

async function checkSubject(value: unknown, deps: ValidateHookDeps): Promise<string[]> {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) {
    return ['subject must be an object {scope, kind, key_expr}'];
  }
  const s = value as Record<string, unknown>;
  const lines: string[] = [];
  for (const key of Object.keys(s))
    if (!SUBJECT_FIELDS.has(key) && !SUBJECT_SERVER_FIELDS.has(key)) lines.push(`subject has unknown field '${key}'${didYouMean(key, SUBJECT_FIELDS)}`);
  // Scope and kind key the state and its Redis hash tag: names, never sanitized.
  for (const field of ['scope', 'kind'] as const) {
    const bad = nameViolation(`subject.${field}`, s[field]);
    if (bad) lines.push(bad);
  }
  if (s.attach !== undefined) {
    const bad = pointerViolation('subject.attach', s.attach);
    if (bad) lines.push(bad);
  }
  const templates = checkSubjectTemplates(s.templates, lines);
  // A declared key_expr template fills it at registration (attachTemplates).
  if (s.key_expr === undefined) {
    if (!templates.includes('key_expr')) lines.push('subject.key_expr is required (a jq field)');
  } else lines.push(...(await checkJqField(s.key_expr, 'subject.key_expr', deps)));
  return lines;
}

function checkSubjectTemplates(value: unknown, lines: string[]): string[] {
  if (value === undefined) return [];
  const known: readonly string[] = STATE_TEMPLATE_NAMES;
  if (!Array.isArray(value) || value.some((v) => typeof v !== 'string' || !known.includes(v))) {
    lines.push(`subject.templates must be an array of declared template names (${known.join(', ')}), got ${JSON.stringify(value)}`);
    return [];
  }
  return value as string[];
}
