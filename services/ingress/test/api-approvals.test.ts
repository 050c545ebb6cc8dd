import { createHash, createHmac } from 'node:crypto';
import { createJqEngine, type HookyardJqEngine } from '@hookyard/jq';
import { DEFAULT_DENY_MESSAGE, approvalLinks, createSecretResolver } from '@hookyard/core';
import { TOKENS, hook, startHarness, type Harness } from './support/harness';

const record = {
  name: 'dry',
  topic: 'github',
  tool: 'echo',
  tool_kwargs: { ref: 'main' },
  condition: { content: '.action == "closed" and .pull_request.merged' },
  start_expr: { content: '{service: .repository.name, env: "prod", ref: "ignored"}' },
  extras_expr: { content: '{pr: .number}' },
  subject: { scope: 'repo', kind: 'pr', key_expr: { content: '"\\(.repository.name)#\\(.number)"' } },
  cancel_expr: { content: '[$parked[] | select(.kind == "wait") | .id]' },
  resume_expr: { content: '$parked | map({id, payload: {verdict: "approve"}})' },
};

/** The approval policy routes, the hook's own rules, the dry run and the hook schema, over the real jq engine. */
describe('approval policy, dry run and hook schema API', () => {
  let jq: HookyardJqEngine;
  let h: Harness;
  beforeAll(async () => {
    jq = await createJqEngine({ workers: 1 });
    h = await startHarness({ jq });
  });
  afterAll(async () => {
    await h.close();
    await jq.close();
  });

  const put = (json: unknown, role: 'admin' | 'operator' = 'admin') => h.call('/api/approval-policy', { method: 'PUT', role, json });
  const dry = (json: unknown) => h.call('/api/hooks/dry-run', { method: 'POST', role: 'operator', json });

  describe('GET/PUT /api/approval-policy', () => {
    it('is version 0 with no rules before any PUT; a reader may read it, only an admin may change it', async () => {
      expect((await h.call('/api/approval-policy', { role: 'reader' })).body).toEqual({ version: 0, rules: [], updated_at: null });
      expect((await put({ rules: [] }, 'operator')).status).toBe(403);
      expect((await h.call('/api/approval-policy', { method: 'PUT', json: { rules: [] } })).status).toBe(401);
    });

    it('a PUT replaces the rules and bumps the version; a GET-edit-PUT round trip with version works; a stale version is 409', async () => {
      const rules = [
        { name: 'prod deploys', tools: ['echo'], when: '.args.env == "prod"', action: 'approve', timeout_seconds: 120, answer_hooks: ['slack-answers'] },
      ];
      const first = await put({ rules });
      expect(first.status).toBe(200);
      expect(first.body).toMatchObject({ rules, version: expect.any(Number) });
      const got = (await h.call('/api/approval-policy', { role: 'reader' })).body;
      expect(got).toEqual(first.body);
      const next = await put({ ...got, rules: [...rules, { tools: ['*'], action: 'deny' }] });
      expect(next.status).toBe(200);
      expect(next.body.version).toBe(got.version + 1);
      const stale = await put({ ...got, rules: [] });
      expect(stale.status).toBe(409);
      expect(stale.body.error.kind).toBe('conflict');
      expect(stale.body.error.message).toContain(`version ${next.body.version}`);
      expect((await h.call('/api/approval-policy', { role: 'reader' })).body.rules).toHaveLength(2);
      await put({ rules: [] });
    });

    it('refuses bad rules with one line per miss, and keeps nothing', async () => {
      const before = (await h.call('/api/approval-policy', { role: 'reader' })).body;
      const r = await put({
        rules: [
          { tools: ['a b'], action: 'deny' },
          { tools: ['*'], when: '.args | (', action: 'deny' },
          { tools: ['*'], action: 'ask' },
        ],
        colour: 1,
        version: -1,
      });
      expect(r.status).toBe(400);
      expect(r.body.error).toMatchObject({ kind: 'bad_input', message: 'approval policy refused' });
      expect(r.body.error.details).toEqual([
        "unknown field 'colour'",
        'version -1 must be the non-negative integer version the change was made against',
        'rules[0].tools[0] "a b" must be *, a tool name or !name',
        expect.stringMatching(/^rules\[1\]\.when does not compile: /),
        // jq's program line and the caret under its column, each a line of its own.
        '    .args | (',
        '            ^',
        'rules[2].action "ask" must be one of allow, approve, deny',
      ]);
      expect((await put({})).body.error.details).toEqual(['rules is required (an array of rules; [] allows every call)']);
      expect((await h.call('/api/approval-policy', { role: 'reader' })).body).toEqual(before);
    });
  });

  describe("a hook's own approval rules", () => {
    it('are checked at registration like the policy, and kept with the hook', async () => {
      const bad = await h.call('/api/hooks', {
        method: 'POST',
        role: 'operator',
        json: hook('strict', 't', { approval: [{ tools: ['echo'], action: 'nope' }] }),
      });
      expect(bad.status).toBe(400);
      expect(bad.body.error.details).toEqual(['approval[0].action "nope" must be one of allow, approve, deny']);
      const approval = [{ tools: ['echo'], action: 'deny', message: 'no echo from here' }];
      const ok = await h.call('/api/hooks', { method: 'POST', role: 'operator', json: hook('strict', 't', { approval }) });
      expect(ok.status).toBe(201);
      expect((await h.call('/api/hooks/strict', { role: 'reader' })).body.approval).toEqual(approval);
    });
  });

  describe('POST /api/hooks/dry-run', () => {
    const merged = { action: 'closed', number: 7, pull_request: { merged: true }, repository: { name: 'api' } };

    it('answers every step of a record (not stored): subject, $parked, condition, door contract, kwargs, extras, allowlist, approval', async () => {
      await put({
        rules: [{ name: 'prod deploys', tools: ['echo'], when: '.args.env == "prod" and .subject.key == "api#7"', action: 'approve', timeout_seconds: 300 }],
      });
      const r = await dry({ hook: record, payload: merged });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({
        hook: 'dry',
        tool: 'echo',
        outcome: 'approval',
        subject: { scope: 'repo', kind: 'pr', key: 'api#7' },
        parked: [],
        state: null,
        condition: { present: true, output: [true], matched: true },
        cancel: [[]],
        resume: [[]],
        act: null,
        kwargs: { service: 'api', env: 'prod', ref: 'main' },
        extras: { pr: 7, 'tai42/subject': { scope: 'repo', kind: 'pr', key: 'api#7' }, 'tai42/idempotency_key': '<run id>' },
        allowlist: { allowed: true, list: '[*]' },
        approval: {
          action: 'approve',
          rule: 'prod deploys',
          source: 'deployment',
          policy_version: expect.any(Number),
          message: '',
          timeout_seconds: 300,
          on_timeout: 'deny',
          answer_hooks: [],
        },
        error: null,
        warnings: [],
      });
      expect(await h.stores.hooks.getHook('dry')).toBeNull();
      expect((await h.stores.runs.list({}, 10)).runs).toHaveLength(0);
    });

    it('against the current $parked: an open interaction on the subject makes the door contract act (no tool, no approval)', async () => {
      await h.stores.hooks.putHook({ ...(hook('parker', 'github') as any), created_at: 'x', updated_at: 'x' });
      const now = Date.now();
      const [kept] = await h.stores.runs.keepEvent({ topic: 'github', payload: {}, now, dispatchGraceMs: 60_000 });
      const claimed = (await h.stores.runs.claim(kept!.id, 'test', 30_000, now))!;
      const { interaction } = await h.stores.interactions.park({
        run: kept!.id,
        token: claimed.token,
        kind: 'wait',
        tool: 'echo',
        argsHash: 'c'.repeat(64),
        subject: { scope: 'repo', kind: 'pr', key: 'api#7' },
        onTimeout: 'fail',
        expiresAt: now + 60_000,
        now,
      });
      const r = await dry({ hook: { ...record, resume_expr: { content: 'null' } }, payload: merged });
      expect(r.body).toMatchObject({
        outcome: 'act',
        parked: [{ id: interaction.id, kind: 'wait', status: 'open' }],
        cancel: [[interaction.id]],
        act: { verb: 'cancel', ids: [interaction.id] },
        kwargs: null,
        approval: null,
        error: null,
        extras: { pr: 7 },
      });
      // Both yielding interactions is what a run refuses too.
      const both = await dry({ hook: record, payload: merged });
      expect(both.body.error).toMatchObject({
        step: 'door contract',
        kind: 'bad_input',
        message: expect.stringContaining('cancel_expr and resume_expr both yielded'),
      });
      const resume = await dry({ hook: { ...record, cancel_expr: { content: 'null' } }, payload: merged });
      expect(resume.body).toMatchObject({ outcome: 'act', act: { verb: 'resume', items: [{ id: interaction.id, payload: { verdict: 'approve' } }] } });
      await h.stores.interactions.resolve(interaction.id, { status: 'cancelled', by: 'test', via: 'api' }, Date.now());
      expect((await dry({ hook: record, payload: merged })).body).toMatchObject({ parked: [], act: null, outcome: 'approval' });
    });

    it("against the subject's current $state: the condition reads it, and the report shows it", async () => {
      const subject = { scope: 'repo', kind: 'pr', key: 'api#7' };
      const gated = { ...record, condition: { content: '$state.deployed != true' }, extras_expr: { content: '{pr: .number, seen: $state}' } };
      expect(
        (await h.call('/api/states/declarations/repo/pr', { method: 'PUT', role: 'admin', json: { schema: {}, description: 'a pull request' } })).status,
      ).toBe(201);
      await h.stores.states.set(subject, { deployed: true }, { door: 'api', actor: 'operator:x', hook: null, now: Date.now() });
      expect((await dry({ hook: gated, payload: merged })).body).toMatchObject({
        state: { deployed: true },
        outcome: 'skipped',
        condition: { output: [false], matched: false },
      });
      await h.stores.states.set(subject, { deployed: false }, { door: 'api', actor: 'operator:x', hook: null, now: Date.now() });
      const r = await dry({ hook: gated, payload: merged });
      expect(r.body).toMatchObject({ state: { deployed: false }, condition: { matched: true }, extras: { pr: 7, seen: { deployed: false } } });
      await h.stores.states.remove(subject, { door: 'api', actor: 'operator:x', hook: null, now: Date.now() });
      const twice = await dry({ hook: { ...record, subject: { ...record.subject, key_expr: { content: '"a", "b"' } } }, payload: merged });
      expect(twice.body.error).toEqual({
        step: 'subject.key_expr',
        kind: 'bad_input',
        message: 'hook \'dry\' subject.key_expr must yield one non-empty string, got 2 outputs: "a", "b"',
      });
    });

    it('start_expr null starts nothing: skipped', async () => {
      const r = await dry({ hook: { ...record, start_expr: { content: 'null' } }, payload: merged });
      expect(r.body).toMatchObject({ outcome: 'skipped', kwargs: null, error: null });
    });

    it('a condition that does not match: skipped, nothing after it evaluated', async () => {
      const r = await dry({ hook: record, payload: { ...merged, action: 'opened' } });
      expect(r.body).toMatchObject({
        outcome: 'skipped',
        condition: { present: true, output: [false], matched: false },
        kwargs: null,
        approval: null,
        error: null,
      });
    });

    it('a registered hook by name; its own rules make the call stricter (deny with its sentence)', async () => {
      await put({ rules: [] });
      const r = await dry({ hook: 'strict', payload: {} });
      expect(r.body).toMatchObject({ outcome: 'denied', approval: { action: 'deny', rule: 'hook rule 1', source: 'hook', message: 'no echo from here' } });
      await put({ rules: [{ tools: ['echo'], action: 'deny' }] });
      expect((await dry({ hook: hook('plain', 't'), payload: {} })).body.approval).toMatchObject({ action: 'deny', message: DEFAULT_DENY_MESSAGE });
      await put({ rules: [] });
      expect((await dry({ hook: hook('plain', 't'), payload: {} })).body).toMatchObject({ outcome: 'start', approval: { action: 'allow', rule: null } });
    });

    it('an error names its step and kind; the allowlist verdict names the effective list', async () => {
      const raised = await dry({ hook: { ...record, start_expr: { content: 'error("no service")' } }, payload: merged });
      expect(raised.body).toMatchObject({
        outcome: 'error',
        kwargs: null,
        error: { step: 'start_expr', kind: 'bad_input', message: expect.stringContaining('no service') },
      });
      const shape = await dry({ hook: { ...record, start_expr: { content: '[1]' } }, payload: merged });
      expect(shape.body.error).toEqual({ step: 'start_expr', kind: 'bad_input', message: "hook 'dry' start_expr must yield an object or null, got [1]" });
      const key = await dry({ hook: { ...record, subject: { ...record.subject, key_expr: { content: '.missing' } } }, payload: merged });
      expect(key.body).toMatchObject({
        outcome: 'error',
        subject: null,
        condition: null,
        error: { step: 'subject.key_expr', kind: 'bad_input', message: "hook 'dry' subject.key_expr must yield one non-empty string, got null" },
      });
      const narrow = await dry({ hook: { ...record, tools_allow: ['print'] }, payload: merged });
      expect(narrow.status).toBe(400); // registration itself refuses a tool outside its own list
      const listed = await dry({ hook: hook('outside', 't', { tools_allow: ['*', '!print'] }), payload: {} });
      expect(listed.body).toMatchObject({ outcome: 'start', allowlist: { allowed: true, list: '[*, !print]' } });
    });

    it('refuses what it cannot run: an unknown name (404), a bad record (400 with its lines), unknown fields', async () => {
      expect((await dry({ hook: 'ghost', payload: {} })).status).toBe(404);
      const bad = await dry({ hook: { name: 'x', topic: 't', tool: 'ghost' } });
      expect(bad.status).toBe(400);
      expect(bad.body.error.details).toEqual(["hook tool 'ghost' is not a registered tool"]);
      expect((await dry({ hook: 'dry', extra: 1 })).body.error.details).toEqual(["unknown field 'extra'"]);
      expect((await dry({ hook: 5 })).status).toBe(400);
      expect((await h.call('/api/hooks/dry-run', { method: 'POST', role: 'reader', json: { hook: 'dry' } })).status).toBe(403);
    });
  });

  describe('GET /api/hooks/schema', () => {
    it('is a JSON Schema whose jq fields, and only those, carry x-tai42-expression', async () => {
      const r = await h.call('/api/hooks/schema', { role: 'reader' });
      expect(r.status).toBe(200);
      const s = r.body;
      expect(s.$schema).toBe('https://json-schema.org/draft/2020-12/schema');
      const annotated: string[] = [];
      const walk = (node: unknown, path: string) => {
        if (Array.isArray(node)) node.forEach((n, i) => walk(n, `${path}/${i}`));
        else if (node && typeof node === 'object') {
          for (const [k, v] of Object.entries(node)) {
            if (k === 'x-tai42-expression') annotated.push(path);
            else walk(v, `${path}/${k}`);
          }
        }
      };
      walk(s, '');
      expect(annotated.sort()).toEqual(
        [
          '/properties/condition',
          '/properties/start_expr',
          '/properties/cancel_expr',
          '/properties/resume_expr',
          '/properties/extras_expr',
          '/properties/subject/properties/key_expr',
          '/$defs/ApprovalRule/properties/when',
        ].sort(),
      );
      for (const f of ['condition', 'start_expr', 'cancel_expr', 'resume_expr', 'extras_expr']) {
        expect(s.properties[f]['x-tai42-expression']).toEqual({
          input: expect.stringMatching(/^payload/),
          result: expect.any(String),
          variables: { $parked: expect.any(String), $state: expect.any(String) },
        });
      }
      expect(s.$defs.ApprovalRule.properties.when['x-tai42-expression'].input).toMatch(/^call: \{tool, args, hook, topic, subject, agent\}/);
      // Every $ref resolves inside the document.
      const refs = JSON.stringify(s).match(/"\$ref":"[^"]+"/g) ?? [];
      for (const ref of refs) expect(s.$defs[ref.slice(16, -1)]).toBeDefined();
      expect(refs.length).toBeGreaterThan(5);
    });

    it('is the schema registration checks against: a valid registration validates', async () => {
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const Ajv2020 = require('ajv/dist/2020').default;
      const ajv = new Ajv2020({ strict: false });
      const validate = ajv.compile((await h.call('/api/hooks/schema', { role: 'reader' })).body);
      expect(validate({ ...record, approval: [{ tools: ['echo'], action: 'approve', answer_hooks: ['slack-answers'] }] })).toBe(true);
      expect(validate({ name: 'x', topic: 't', tool: 'echo', condition: { content: '.a', extra: 1 } })).toBe(false);
      expect(validate({ name: 'x', topic: 't', tool: 'echo', approval: [{ tools: ['*'], action: 'maybe' }] })).toBe(false);
    });
  });

  describe('POST /api/interactions/{id}/approve|deny', () => {
    let n = 0;
    /** A run of hook `answer-me` parked on an interaction of `kind`, as the executor parks it. */
    async function parked(kind: 'approval' | 'wait' = 'approval', expiresInMs = 60_000) {
      if (!(await h.stores.hooks.getHook('answer-me'))) {
        await h.stores.hooks.putHook({ ...(hook('answer-me', 'answers') as any), created_at: 'x', updated_at: 'x' });
      }
      n += 1;
      const now = Date.now();
      const [kept] = await h.stores.runs.keepEvent({ topic: 'answers', payload: { n }, now, dispatchGraceMs: 60_000 });
      const claimed = (await h.stores.runs.claim(kept!.id, 'test', 30_000, now))!;
      const { interaction } = await h.stores.interactions.park({
        run: kept!.id,
        token: claimed.token,
        kind,
        tool: 'echo',
        argsHash: 'a'.repeat(64),
        rule: 'r',
        policyVersion: 1,
        expiresAt: now + expiresInMs,
        now,
      });
      return interaction;
    }
    const answer = (id: string, verdict: string, json: unknown = {}, role: 'operator' | 'reader' = 'operator') =>
      h.call(`/api/interactions/${id}/${verdict}`, { method: 'POST', role, json });

    it('approve resolves the approval once, wakes and publishes its run; a second answer is 409 naming who answered first', async () => {
      const i = await parked();
      const published = h.bus.published.length;
      const r = await answer(i.id, 'approve', { reason: 'ship it' });
      expect(r.status).toBe(200);
      expect(r.body.interaction).toMatchObject({
        id: i.id,
        status: 'approved',
        resolution: { by: expect.stringMatching(/^operator:[0-9a-f]{8}$/), via: 'api', reason: 'ship it' },
      });
      expect(r.body.run).toMatchObject({ id: i.run, status: 'pending' });
      expect(h.bus.published.slice(published)).toEqual([[i.run]]);
      const again = await answer(i.id, 'deny');
      expect(again.status).toBe(409);
      expect(again.body.error.message).toContain(`interaction ${i.id} is already approved (by ${r.body.interaction.resolution.by} via api`);
    });

    it('deny resolves it denied with the reason', async () => {
      const i = await parked();
      const r = await answer(i.id, 'deny', { reason: 'not on a Friday' });
      expect(r.status).toBe(200);
      expect(r.body.interaction).toMatchObject({ status: 'denied', resolution: { reason: 'not on a Friday' } });
    });

    it('refuses a wait, an approval past its expiry, an unknown id, a bad body and a reader', async () => {
      const w = await parked('wait');
      expect((await answer(w.id, 'approve')).body.error).toMatchObject({ kind: 'conflict', message: expect.stringContaining('is a wait, not an approval') });
      const late = await parked('approval', 1);
      await new Promise((r) => setTimeout(r, 5));
      const expired = await answer(late.id, 'approve');
      expect(expired.status).toBe(409);
      expect(expired.body.error.message).toContain(`expired at ${late.expires_at}`);
      expect((await h.stores.interactions.get(late.id))!.status).toBe('open');
      expect((await answer('0000000000' + '0'.repeat(34), 'approve')).status).toBe(404);
      expect((await answer('nope', 'approve')).status).toBe(404);
      const i = await parked();
      const bad = await answer(i.id, 'approve', { reason: 5, verdict: 'x' });
      expect(bad.status).toBe(400);
      // One declared body for cancel, approve and deny: the same lines (the known fields, the value refused).
      expect(bad.body.error.details).toEqual(["unknown field 'verdict' (known: reason)", 'reason must be a string of at most 1000 characters, got 5']);
      expect((await answer(i.id, 'approve', {}, 'reader')).status).toBe(403);
      expect((await h.stores.interactions.get(i.id))!.status).toBe('open');
    });
  });
});

describe('signed approval links', () => {
  const KEY = 'approval-link-key-for-tests-0123456789';
  /** Whom the links the tests make themselves are issued to. */
  const ISSUER = 'operator:0badc0de';
  const labelOf = (role: keyof typeof TOKENS) => `${role}:${createHash('sha256').update(TOKENS[role]).digest('hex').slice(0, 8)}`;
  let jq: HookyardJqEngine;
  let h: Harness;
  beforeAll(async () => {
    jq = await createJqEngine({ workers: 1 });
    h = await startHarness({
      jq,
      settings: { approvalLinkSecret: 'env:HOOKS_SECRET_LINKS', publicUrl: 'https://hooks.example.test' },
      deps: { secrets: createSecretResolver({ env: { HOOKS_SECRET_LINKS: KEY } }) },
    });
    await h.stores.hooks.putHook({ ...(hook('linked', 'answers') as any), created_at: 'x', updated_at: 'x' });
  });
  afterAll(async () => {
    await h.close();
    await jq.close();
  });

  let n = 0;
  async function parked(expiresInMs = 60_000, link: { madeAt?: number; ttlMs?: number } = {}) {
    n += 1;
    const now = Date.now();
    const [kept] = await h.stores.runs.keepEvent({ topic: 'answers', payload: { n }, now, dispatchGraceMs: 60_000 });
    const claimed = (await h.stores.runs.claim(kept!.id, 'test', 30_000, now))!;
    const { interaction } = await h.stores.interactions.park({
      run: kept!.id,
      token: claimed.token,
      kind: 'approval',
      tool: 'deploy',
      argsHash: 'b'.repeat(64),
      rule: 'prod deploys',
      policyVersion: 1,
      expiresAt: now + expiresInMs,
      now,
    });
    const links = approvalLinks('https://hooks.example.test', Buffer.from(KEY), interaction, link.madeAt ?? now, link.ttlMs ?? 3_600_000, ISSUER);
    const local = (u: string) => u.replace('https://hooks.example.test', '');
    return { i: interaction, approve: local(links.approve_url), deny: local(links.deny_url) };
  }
  const get = (path: string) => h.call(path);
  const post = (path: string, form = '') => h.call(path, { method: 'POST', headers: { 'content-type': 'application/x-www-form-urlencoded' }, body: form });

  it('GET shows a confirmation page and answers nothing (a chat preview is harmless)', async () => {
    const { i, approve } = await parked();
    for (let k = 0; k < 3; k += 1) {
      const r = await get(approve);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^text\/html/);
      expect(r.headers.get('content-security-policy')).toContain("default-src 'none'");
      expect(r.text).toContain('<form method="post">');
      expect(r.text).toContain('<code>deploy</code>');
      expect(r.text).toContain('opening this page changes nothing');
    }
    expect((await h.stores.interactions.get(i.id))!.status).toBe('open');
  });

  it('POST answers once (via link); a second POST, and a GET after it, are refused naming the first answer', async () => {
    const { i, approve, deny } = await parked();
    const published = h.bus.published.length;
    const r = await post(approve, 'reason=%3Cb%3Elgtm%3C%2Fb%3E');
    expect(r.status).toBe(200);
    expect(r.text).toContain('Answered: approved');
    const after = (await h.stores.interactions.get(i.id))!;
    expect(after).toMatchObject({
      status: 'approved',
      resolution: { by: expect.stringMatching(/^signed link issued to operator:0badc0de, used from /), via: 'link', reason: '<b>lgtm</b>' },
    });
    expect(h.bus.published.slice(published)).toEqual([[i.run]]);
    const again = await post(approve);
    expect(again.status).toBe(409);
    expect(again.text).toContain(`already answered: approved by ${after.resolution!.by} via link`);
    expect((await post(deny)).status).toBe(409);
    expect((await get(approve)).status).toBe(409);
    expect((await h.stores.interactions.get(i.id))!.status).toBe('approved');
  });

  it('the deny link denies', async () => {
    const { i, deny } = await parked();
    expect((await post(deny, 'reason=no')).status).toBe(200);
    expect((await h.stores.interactions.get(i.id))!).toMatchObject({ status: 'denied', resolution: { reason: 'no' } });
  });

  it('a tampered link, a deny signature on the approve path, another id or no signature: one fixed 403, nothing answered', async () => {
    const { i, approve, deny } = await parked();
    const other = await parked();
    const sig = new URL(`https://x${approve}`).searchParams.get('sig')!;
    const flipped = sig.slice(0, -2) + (sig.endsWith('A') ? 'B' : 'A') + sig.slice(-1);
    const denySig = new URL(`https://x${deny}`).searchParams.get('sig')!;
    const exp = new URL(`https://x${approve}`).searchParams.get('exp')!;
    const bad = [
      approve.replace(sig, flipped),
      `/approvals/${i.id}/approve?exp=${exp}&by=${ISSUER}&sig=${denySig}`,
      `/approvals/${other.i.id}/approve?exp=${exp}&by=${ISSUER}&sig=${sig}`,
      `/approvals/${i.id}/approve`,
      `/approvals/not-an-id/approve?exp=${exp}&by=${ISSUER}&sig=${sig}`,
      // A later expiry than the one signed, or none.
      approve.replace(`exp=${exp}`, `exp=${Number(exp) + 3600}`),
      `/approvals/${i.id}/approve?sig=${sig}`,
    ];
    for (const path of bad) {
      for (const r of [await get(path), await post(path)]) {
        expect([path, r.status]).toEqual([path, 403]);
        expect(r.text).toContain('This approval link is not valid.');
      }
    }
    expect((await h.stores.interactions.get(i.id))!.status).toBe('open');
    expect((await h.stores.interactions.get(other.i.id))!.status).toBe('open');
  });

  it('a link past its expiry is refused (409) and answers nothing', async () => {
    const { i, approve } = await parked(1);
    await new Promise((r) => setTimeout(r, 5));
    const r = await post(approve);
    expect(r.status).toBe(409);
    expect(r.text).toContain(`expired at ${i.expires_at}`);
    expect((await h.stores.interactions.get(i.id))!.status).toBe('open');
  });

  it('a link answer records the client address and user agent in the resolution', async () => {
    const { i, approve } = await parked();
    const r = await h.call(approve, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'curl/8.5.0' },
      body: 'reason=ok',
    });
    expect(r.status).toBe(200);
    const after = (await h.stores.interactions.get(i.id))!;
    // No trusted proxy: the socket's peer.
    expect(after.resolution).toMatchObject({
      via: 'link',
      by: expect.stringMatching(/^signed link issued to operator:0badc0de, used from (::ffff:)?127\.0\.0\.1 \(curl\/8\.5\.0\)$/),
    });
  });

  it('a link past its own expiry (HOOKS_APPROVAL_LINK_TTL_SECONDS) is refused with 403 while the approval is still open; nothing answered', async () => {
    // Made two minutes ago with a one-minute TTL: the link expired, the approval (an hour) did not.
    const made = Date.now() - 120_000;
    const { i, approve, deny } = await parked(3_600_000, { madeAt: made, ttlMs: 60_000 });
    for (const path of [approve, deny]) {
      for (const r of [await get(path), await post(path)]) {
        expect(r.status).toBe(403);
        expect(r.text).toContain(`This approval link expired at ${new Date(Math.floor((made + 60_000) / 1000) * 1000).toISOString()}`);
        expect(r.text).toContain(`still open until ${i.expires_at}`);
      }
    }
    expect((await h.stores.interactions.get(i.id))!.status).toBe('open');
  });

  it('GET /api/interactions/{id}: an operator gets fresh signed links of an open approval; a reader gets no links field', async () => {
    const { i } = await parked();
    const asReader = await h.call(`/api/interactions/${i.id}`, { role: 'reader' });
    expect(asReader.status).toBe(200);
    expect(asReader.body.id).toBe(i.id);
    expect(asReader.body).not.toHaveProperty('links');
    expect(asReader.text).not.toContain('/approvals/');
    const listed = await h.call(`/api/interactions?run=${i.run}`, { role: 'reader' });
    expect(listed.text).not.toContain('/approvals/');
    for (const role of ['operator', 'admin'] as const) {
      const r = await h.call(`/api/interactions/${i.id}`, { role });
      expect(r.status).toBe(200);
      expect(r.body.links).toEqual({
        approve_url: expect.stringMatching(new RegExp(`^https://hooks\\.example\\.test/approvals/${i.id}/approve\\?exp=[0-9]+&by=${role}:[0-9a-f]{8}&sig=`)),
        deny_url: expect.stringMatching(new RegExp(`^https://hooks\\.example\\.test/approvals/${i.id}/deny\\?exp=[0-9]+&by=${role}:[0-9a-f]{8}&sig=`)),
        expires_at: expect.any(String),
      });
      // The operator's link works.
      if (role === 'admin') {
        const answered = await post(String(r.body.links.deny_url).replace('https://hooks.example.test', ''), 'reason=no');
        expect(answered.status).toBe(200);
      }
    }
    // Answered: no links any more.
    expect((await h.call(`/api/interactions/${i.id}`, { role: 'operator' })).body.links).toBeNull();
  });

  /** The links an operator (or admin) is handed by GET /api/interactions/{id}, as local paths. */
  async function issued(id: string, role: 'operator' | 'admin' = 'operator') {
    const r = await h.call(`/api/interactions/${id}`, { role });
    expect(r.status).toBe(200);
    const local = (u: string) => u.replace('https://hooks.example.test', '');
    return {
      links: r.body.links as { approve_url: string; deny_url: string; expires_at: string },
      approve: local(r.body.links.approve_url),
      deny: local(r.body.links.deny_url),
    };
  }
  const auditOf = async (id: string, action: string) => (await h.call(`/api/audit?target=${id}&action=${action}`, { role: 'admin' })).body.entries as any[];

  it("issuing links (GET /api/interactions/{id} by an operator) is in GET /api/audit: who, which interaction, the links' expiry", async () => {
    const { i } = await parked();
    // A reader is handed no links: nothing issued, nothing recorded.
    expect((await h.call(`/api/interactions/${i.id}`, { role: 'reader' })).status).toBe(200);
    expect(await auditOf(i.id, 'interaction.links_issued')).toEqual([]);
    const { links } = await issued(i.id);
    // Recorded before the links are answered: no wait needed.
    const entries = await auditOf(i.id, 'interaction.links_issued');
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actor: { kind: 'token', role: 'operator', label: labelOf('operator') },
      action: 'interaction.links_issued',
      target: i.id,
      status: 200,
      request: { method: 'GET', path: `/api/interactions/${i.id}` },
      detail: { issuer: labelOf('operator'), expires_at: links.expires_at, run: i.run },
    });
    // The links themselves (their signatures) are not in the trail.
    const trail = JSON.stringify(entries);
    for (const u of [links.approve_url, links.deny_url]) expect(trail).not.toContain(new URL(u).searchParams.get('sig')!);
  });

  it('an answer through an operator\'s link names its issuer in the resolution and the audit entry ("signed link issued to operator:…, used from …")', async () => {
    const { i } = await parked();
    const { approve } = await issued(i.id);
    expect(approve).toContain(`&by=${labelOf('operator')}&`);
    const r = await h.call(approve, {
      method: 'POST',
      headers: { 'content-type': 'application/x-www-form-urlencoded', 'user-agent': 'anyone/1.0' },
      body: 'reason=ok',
    });
    expect(r.status).toBe(200);
    const by = (await h.stores.interactions.get(i.id))!.resolution!.by;
    expect(by).toMatch(new RegExp(`^signed link issued to ${labelOf('operator')}, used from (::ffff:)?127\\.0\\.0\\.1 \\(anyone/1\\.0\\)$`));
    // The link answer's entry is written after its page is answered: wait for it.
    const until = Date.now() + 10_000;
    let entries = await auditOf(i.id, 'interaction.approve');
    while (entries.length === 0 && Date.now() < until) {
      await new Promise((res) => setTimeout(res, 20));
      entries = await auditOf(i.id, 'interaction.approve');
    }
    expect(entries).toHaveLength(1);
    expect(entries[0]).toMatchObject({
      actor: { kind: 'link', label: `link:${i.id}` },
      after: { status: 'approved', resolution: { by, via: 'link' } },
      detail: { by, issuer: labelOf('operator'), reason: 'ok' },
    });
  });

  it('a link whose issuer was altered or dropped is the fixed 403 and answers nothing', async () => {
    const { i } = await parked();
    const { approve, deny } = await issued(i.id);
    const by = `by=${labelOf('operator')}`;
    const bad = [
      approve.replace(by, 'by=admin:0badc0de'),
      approve.replace(by, `by=${labelOf('admin')}`),
      deny.replace(by, 'by=hook:ask-humans'),
      approve.replace(by, 'by=operator:e81d4306%0Aextra'),
      approve.replace(`&${by}`, ''),
      `${approve}&by=hook:other`,
    ];
    for (const path of bad) {
      for (const r of [await get(path), await post(path)]) {
        expect([path, r.status]).toEqual([path, 403]);
        expect(r.text).toContain('This approval link is not valid.');
      }
    }
    expect((await h.stores.interactions.get(i.id))!.status).toBe('open');
  });

  it('a link signed before links named their issuer (no by) is refused with 403 saying so; nothing answered', async () => {
    const { i } = await parked();
    const exp = Math.floor((Date.now() + 600_000) / 1000);
    // The signature such links carried: the id, the verdict and the expiry, no issuer.
    const sig = createHmac('sha256', KEY).update(`hookyard approval link v2\n${i.id}\napprove\n${exp}`).digest('base64url');
    const old = `/approvals/${i.id}/approve?exp=${exp}&sig=${sig}`;
    for (const r of [await get(old), await post(old)]) {
      expect(r.status).toBe(403);
      expect(r.text).toContain('made before links named whom they were issued to');
    }
    expect((await h.stores.interactions.get(i.id))!.status).toBe('open');
  });

  it('without HOOKS_APPROVAL_LINK_SECRET the pages say links are off (404)', async () => {
    const off = await startHarness({ jq });
    try {
      const r = await off.call('/approvals/0000000000aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa00/approve?sig=x');
      expect(r.status).toBe(404);
      expect(r.text).toContain('not enabled');
    } finally {
      await off.close();
    }
  });
});
