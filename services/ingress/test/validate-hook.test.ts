import type { JqTemplate } from '@hookyard/core';
import { validateHook, type ValidateHookDeps } from '../src/hooks/validate-hook';
import { SchemaChecker } from '../src/hooks/schema-checker';
import { templateVars } from '../src/hooks/jq-fields';
import { fakeJq, testTools } from './support/fakes';

const NOW = Date.parse('2026-01-01T00:00:00Z');

function deps(over: Partial<ValidateHookDeps> = {}): ValidateHookDeps {
  const templates = new Map<string, JqTemplate>([['jq/ok', { id: 'jq/ok', content: '.a == $want' }]]);
  return {
    tools: testTools(),
    jq: fakeJq(),
    schemas: new SchemaChecker(),
    getTemplate: async (id) => templates.get(id) ?? null,
    toolsAllow: ['*'],
    now: NOW,
    ...over,
  };
}

async function refusals(input: unknown, over: Partial<ValidateHookDeps> = {}): Promise<string[]> {
  const r = await validateHook(input, deps(over));
  if (r.ok) throw new Error(`expected refusal, got ${JSON.stringify(r.hook)}`);
  return r.errors;
}

const base = { name: 'h1', topic: 'orders', tool: 'echo' };

describe('validateHook', () => {
  it('accepts a full hook and stamps timestamps', async () => {
    const r = await validateHook(
      {
        ...base,
        tool_kwargs: { a: 1 },
        condition: { content: '.kind == "x"' },
        start_expr: { id: 'jq/ok', kwargs: { want: 1 } },
        subject: { scope: 'conv', kind: 'order', key_expr: { content: '.id' } },
        tools_allow: ['echo', '!print'],
        description: 'd',
        created_at: 'ignored',
      },
      deps(),
    );
    expect(r.ok).toBe(true);
    if (!r.ok) return;
    expect(r.hook).toMatchObject({ name: 'h1', topic: 'orders', tool: 'echo', tools_allow: ['echo', '!print'], description: 'd' });
    expect(r.hook.created_at).toBe('2026-01-01T00:00:00.000Z');
    expect(r.hook.tool_kwargs).toEqual({ a: 1 });
  });

  it('names the field and the pattern for bad names, never sanitizing', async () => {
    const errors = await refusals({ ...base, name: 'Bad.Name', topic: 'a/b' });
    expect(errors).toEqual(['name "Bad.Name" must match ^[a-z0-9][a-z0-9_-]*$', 'topic "a/b" must match ^[a-z0-9][a-z0-9_-]*$']);
  });

  it('refuses an unregistered tool with the exact line', async () => {
    expect(await refusals({ ...base, tool: 'ghost' })).toEqual(["hook tool 'ghost' is not a registered tool"]);
  });

  it('validates tool_kwargs against the JSON Schema, one line per miss', async () => {
    const errors = await refusals({ ...base, tool: 'fetcher', tool_kwargs: { url: 5, retries: 'x' } });
    expect(errors).toEqual(expect.arrayContaining(['tool_kwargs/url must be string', 'tool_kwargs/retries must be integer']));
    expect(errors).toHaveLength(2);
  });

  it('reports a missing required kwarg without start_expr, not with one', async () => {
    expect(await refusals({ ...base, tool: 'fetcher', tool_kwargs: {} })).toEqual(["tool_kwargs must have required property 'url'"]);
    const r = await validateHook({ ...base, tool: 'fetcher', tool_kwargs: {}, start_expr: { content: '{url: .u}' } }, deps());
    expect(r.ok).toBe(true);
  });

  it('checks tool_names entries inside tool_kwargs', async () => {
    expect(await refusals({ ...base, tool_kwargs: { tool_names: ['echo', 'ghost'] } })).toEqual([
      "tool_kwargs.tool_names entry 'ghost' is not a registered tool",
    ]);
  });

  it('checks stored template references in hook jq fields and in annotated kwargs', async () => {
    expect(await refusals({ ...base, condition: { id: 'jq/missing' } })).toEqual(["stored id 'jq/missing' at condition is not a stored template"]);
    expect(await refusals({ ...base, tool: 'fetcher', tool_kwargs: { url: 'u', jq_expression: { id: 'jq/missing' } } })).toEqual([
      "stored id 'jq/missing' at tool_kwargs > jq_expression is not a stored template",
    ]);
  });

  it('compiles every jq field and quotes jq on a syntax error', async () => {
    const errors = await refusals({ ...base, condition: { content: '.a | (' }, extras_expr: { content: '[.x' } });
    expect(errors).toHaveLength(2);
    expect(errors[0]).toMatch(/^condition does not compile: jq: error: syntax error/);
    expect(errors[1]).toMatch(/^extras_expr does not compile: jq: error: syntax error/);
  });

  it('binds a template kwargs as variables (a missing kwarg does not compile)', async () => {
    const errors = await refusals({ ...base, condition: { id: 'jq/ok' } });
    expect(errors).toEqual([expect.stringMatching(/^condition \(stored id 'jq\/ok'\) does not compile: .*\$want is not defined/)]);
  });

  it('checks the subject shape', async () => {
    const errors = await refusals({ ...base, subject: { scope: '', key_expr: 'x', extra: 1 } });
    expect(errors).toEqual([
      "subject has unknown field 'extra'",
      'subject.scope "" must match ^[a-z0-9][a-z0-9_-]*$',
      'subject.kind must be a string matching ^[a-z0-9][a-z0-9_-]*$',
      expect.stringMatching(/^subject.key_expr must be \{"content"/),
    ]);
  });

  it('scope and kind of a subject match the name pattern (they key the state): one line per miss', async () => {
    const errors = await refusals({ ...base, subject: { scope: 'GitHub', kind: 'pull request', key_expr: { content: '.id' } } });
    expect(errors).toEqual(['subject.scope "GitHub" must match ^[a-z0-9][a-z0-9_-]*$', 'subject.kind "pull request" must match ^[a-z0-9][a-z0-9_-]*$']);
    expect(await refusals({ ...base, subject: { scope: 'a'.repeat(129), kind: 'pr', key_expr: { id: 'jq/none' } } })).toEqual([
      'subject.scope must be at most 128 characters',
      "stored id 'jq/none' at subject.key_expr is not a stored template",
    ]);
  });

  it('refuses unknown top-level fields and malformed shapes', async () => {
    const errors = await refusals({ ...base, colour: 'red', tool_kwargs: [], description: 3, condition: 'x' });
    expect(errors).toEqual([
      "unknown field 'colour'",
      'description must be a string',
      'tool_kwargs must be an object',
      expect.stringMatching(/^condition must be/),
    ]);
    expect(await refusals(null)).toEqual(['the hook must be a JSON object']);
  });

  it('applies the allowlist: hook list intersected with the deployment list', async () => {
    expect(await refusals({ ...base, tools_allow: ['print'] })).toEqual(["hook tool 'echo' is not allowed by the tool allowlist"]);
    expect(await refusals(base, { toolsAllow: ['*', '!echo'] })).toEqual(["hook tool 'echo' is not allowed by the tool allowlist"]);
    expect(await refusals({ ...base, tools_allow: ['echo', 'a b', 7] })).toEqual([
      'tools_allow[1] "a b" must be *, a tool name or !name',
      'tools_allow[2] 7 must be *, a tool name or !name',
    ]);
  });

  it('collects every miss at once', async () => {
    const errors = await refusals({ name: 'X', topic: 'ok', tool: 'ghost', condition: { id: 'jq/missing' } });
    expect(errors).toEqual([
      'name "X" must match ^[a-z0-9][a-z0-9_-]*$',
      "hook tool 'ghost' is not a registered tool",
      "stored id 'jq/missing' at condition is not a stored template",
    ]);
  });

  it('templateVars lists the $names a template mentions', () => {
    expect(templateVars('.a == $want and $ENV.x and ($b | $want)').sort()).toEqual(['b', 'want']);
  });
});
