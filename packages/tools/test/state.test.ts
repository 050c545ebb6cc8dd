import Ajv from 'ajv';
import { HookyardError, openDeclaration, silentLogger } from '@hookyard/core';
import type { SubjectKey } from '@hookyard/core';
import { createMemoryStores } from '@hookyard/store';
import type { Stores } from '@hookyard/store';
import { BUILTIN_TOOL_NAMES, LocalRepo, STATE_TOOL_NAMES, stateTools } from '../src';
import type { ToolCallContext } from '../src';

const T0 = Date.parse('2026-03-01T00:00:00Z');
const pr: SubjectKey = { scope: 'github', kind: 'pull_request', key: 'acme/api#7' };
const ctxOf = (runId: string, hook: string, subject: SubjectKey | null): ToolCallContext => ({
  runId,
  hook,
  attempt: 1,
  idempotencyKey: runId,
  extras: {},
  subject,
  signal: new AbortController().signal,
  logger: silentLogger(),
});

async function refusal(p: Promise<unknown>): Promise<HookyardError> {
  const err = await p.then(
    () => undefined,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(HookyardError);
  return err as HookyardError;
}

describe('state tools', () => {
  let stores: Stores;
  let repo: LocalRepo;
  let now = T0;
  beforeEach(async () => {
    stores = createMemoryStores({ stateMaxBytes: 256 });
    now = T0;
    repo = new LocalRepo(stateTools(stores.states, () => now));
    // A state never declared is not written: the states these tests write are declared open.
    for (const kind of ['pull_request', 'issue']) await stores.declarations.putDeclaration(openDeclaration('github', kind, 'written by these tests'), T0);
  });

  it('are built-in names, each with a JSON Schema that compiles and takes an optional subject', async () => {
    expect(await repo.names()).toEqual([...STATE_TOOL_NAMES]);
    const ajv = new Ajv({ strict: false });
    for (const name of STATE_TOOL_NAMES) {
      expect(BUILTIN_TOOL_NAMES).toContain(name);
      const schema = (await repo.schema(name))!;
      expect(schema).toMatchObject({ type: 'object', additionalProperties: false, properties: { subject: { required: ['scope', 'kind', 'key'] } } });
      const validate = ajv.compile(schema);
      expect(validate({ subject: pr, ...(name === 'state_set' ? { document: {} } : name === 'state_merge' ? { patch: {} } : {}) })).toBe(true);
      expect(validate({ subject: { ...pr, scope: 'Bad Scope' } })).toBe(false);
    }
    expect((await repo.schema('state_set'))!.required).toEqual(['document']);
    expect((await repo.schema('state_merge'))!.required).toEqual(['patch']);
  });

  it('act on the ambient subject, attributing each write to the run and its hook', async () => {
    const ctx = ctxOf('run-1', 'ci', pr);
    expect(await repo.exec('state_get', {}, ctx)).toEqual({ subject: pr, version: 0, document: null, updated_at: null });
    expect(await repo.exec('state_set', { document: { checks: 'pending' } }, ctx)).toEqual({ subject: pr, version: 1, document: { checks: 'pending' } });
    now = T0 + 1000;
    const merged = await repo.exec('state_merge', { patch: { checks: 'green', review: { by: 'ann' } } }, ctxOf('run-2', 'review', pr));
    expect(merged).toEqual({ subject: pr, version: 2, document: { checks: 'green', review: { by: 'ann' } } });
    expect(await repo.exec('state_get', {}, ctx)).toMatchObject({ version: 2, updated_at: new Date(T0 + 1000).toISOString() });
    expect((await stores.states.get(pr))!.history).toEqual([
      { version: 1, op: 'set', door: 'hook', actor: 'run-1', hook: 'ci', at: new Date(T0).toISOString() },
      { version: 2, op: 'merge', door: 'hook', actor: 'run-2', hook: 'review', at: new Date(T0 + 1000).toISOString() },
    ]);
    expect(await repo.exec('state_delete', {}, ctx)).toEqual({ subject: pr, deleted: true, version: 2 });
    expect(await repo.exec('state_delete', {}, ctx)).toEqual({ subject: pr, deleted: false, version: 0 });
  });

  it('an explicit subject wins over the ambient one; without either the call is bad_input naming subject', async () => {
    const other = { scope: 'github', kind: 'issue', key: '12' };
    await repo.exec('state_set', { document: { a: 1 }, subject: other }, ctxOf('run-1', 'ci', pr));
    expect(await stores.states.get(pr)).toBeNull();
    expect((await stores.states.get(other))!.document).toEqual({ a: 1 });
    for (const name of STATE_TOOL_NAMES) {
      const args = name === 'state_set' ? { document: {} } : name === 'state_merge' ? { patch: {} } : {};
      const e = await refusal(repo.exec(name, args, ctxOf('run-2', 'plain', null)));
      expect(e.kind).toBe('bad_input');
      expect(e.message).toBe(`${name}: missing argument 'subject' {scope, kind, key}: hook 'plain' declares no subject, so the call must name one`);
    }
  });

  it("a hook's state_set or state_merge with a subject argument naming an undeclared state fails not_found naming it and how to declare it; nothing written", async () => {
    const typo = { scope: 'github', kind: 'pull_requests', key: '7' };
    for (const [name, args] of [
      ['state_set', { document: { a: 1 }, subject: typo }],
      ['state_merge', { patch: { a: 1 }, subject: typo }],
    ] as const) {
      const e = await refusal(repo.exec(name, args, ctxOf('run-1', 'ci', pr)));
      expect(e.kind).toBe('not_found');
      expect(e.message).toContain(
        "github/pull_requests is not a declared state (did you mean 'github/pull_request'?); nothing written. Declare it first: PUT /api/states/declarations/github/pull_requests or hookyard states declare github pull_requests",
      );
    }
    expect(await stores.states.get(typo)).toBeNull();
    expect(await repo.exec('state_get', { subject: typo }, ctxOf('run-2', 'ci', pr))).toEqual({ subject: typo, version: 0, document: null, updated_at: null });
  });

  it.each([
    ['state_set', { document: {}, subject: { scope: 'Git Hub', kind: 'pr', key: 'k' } }, 'subject.scope "Git Hub" must match'],
    ['state_set', { document: {}, subject: { scope: 'gh', kind: 'pr', key: '' } }, 'subject.key must be a non-empty string, got ""'],
    ['state_set', { document: {}, subject: { scope: 'gh', kind: 'pr', key: 'k', extra: 1 } }, "subject has unknown field 'extra'"],
    ['state_set', { document: [1] }, 'state_set: document must be a JSON object, got [1]'],
    ['state_set', {}, 'state_set: document must be a JSON object, got null'],
    ['state_merge', { patch: 'x' }, 'state_merge: patch must be a JSON object, got "x"'],
    ['state_merge', { patch: {}, if_version: 1.5 }, 'state_merge: if_version must be a whole number >= 0, got 1.5'],
    ['state_get', { key: 'k' }, "state_get: unknown argument 'key' (known: subject)"],
  ])('%s %j is bad_input: %s', async (name, args, message) => {
    const e = await refusal(repo.exec(name, args, ctxOf('r', 'h', pr)));
    expect(e.kind).toBe('bad_input');
    expect(e.message).toContain(message);
  });

  it('if_version: two hooks on one subject, the second write against a stale version is conflict and changes nothing', async () => {
    const a = ctxOf('run-a', 'ci', pr);
    const b = ctxOf('run-b', 'review', pr);
    const read = (await repo.exec('state_get', {}, a)) as { version: number };
    await repo.exec('state_set', { document: { by: 'ci' }, if_version: read.version }, a);
    const e = await refusal(repo.exec('state_merge', { patch: { by: 'review' }, if_version: read.version }, b));
    expect(e.kind).toBe('conflict');
    expect(e.message).toContain('is at version 1, not version 0');
    expect(await repo.exec('state_merge', { patch: { also: 'review' }, if_version: 1 }, b)).toMatchObject({
      version: 2,
      document: { by: 'ci', also: 'review' },
    });
    expect((await refusal(repo.exec('state_delete', { if_version: 1 }, b))).kind).toBe('conflict');
  });

  it('a merge keeps __proto__ a plain key of the document', async () => {
    const patch = JSON.parse('{"__proto__": {"admin": true}}') as Record<string, unknown>;
    const r = (await repo.exec('state_merge', { patch }, ctxOf('r', 'h', pr))) as { document: Record<string, unknown> };
    expect(Object.getPrototypeOf(r.document)).toBe(Object.prototype);
    expect(Object.keys(r.document)).toEqual(['__proto__']);
    expect((r.document as { admin?: unknown }).admin).toBeUndefined();
  });

  it('a document past the cap is bad_input naming HOOKS_STATE_MAX_BYTES', async () => {
    const e = await refusal(repo.exec('state_set', { document: { big: 'x'.repeat(300) } }, ctxOf('r', 'h', pr)));
    expect([e.kind, e.message.includes('more than 256 (HOOKS_STATE_MAX_BYTES)')]).toEqual(['bad_input', true]);
  });

  it("a hook's state_merge writes only inside its binding's attach path: outside it is forbidden naming the path; against the declared schema bad_input with the JSON pointer", async () => {
    await stores.declarations.putDeclaration(
      {
        scope: 'github',
        kind: 'pull_request',
        schema: { type: 'object', properties: { checks: { type: 'object', properties: { n: { type: 'integer' } } } } },
        description: '',
        templates: {},
      },
      now,
    );
    const subject = { scope: 'github', kind: 'pull_request', key_expr: { content: '.pr' }, attach: '/checks' };
    await stores.hooks.putHook({ name: 'ci', topic: 't', tool: 'state_merge', tool_kwargs: {}, subject, created_at: '', updated_at: '' });
    expect(await repo.exec('state_merge', { patch: { checks: { n: 1 } } }, ctxOf('run-1', 'ci', pr))).toMatchObject({
      version: 1,
      document: { checks: { n: 1 } },
    });
    const outside = await refusal(repo.exec('state_merge', { patch: { reviews: { ann: 'ok' } } }, ctxOf('run-2', 'ci', pr)));
    expect([outside.kind, outside.message]).toEqual([
      'forbidden',
      'state github/pull_request/"acme/api#7": hook \'ci\' writes only at its attach path "/checks"; this write changes the document outside it',
    ]);
    const bad = await refusal(repo.exec('state_merge', { patch: { checks: { n: 'one' } } }, ctxOf('run-3', 'ci', pr)));
    expect([bad.kind, bad.details]).toEqual(['bad_input', ['/checks/n must be integer']]);
    expect(await stores.states.get(pr)).toMatchObject({ version: 1, document: { checks: { n: 1 } } });
  });
});
