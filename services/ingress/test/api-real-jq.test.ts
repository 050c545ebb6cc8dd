import { createJqEngine, type HookyardJqEngine } from '@hookyard/jq';
import { startHarness, type Harness } from './support/harness';

/** Registration and templates against the real jq engine (the other suites use a stand-in). */
describe('hook registration with the real jq engine', () => {
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

  it('accepts valid jq in every field, $parked included', async () => {
    const r = await h.call('/api/hooks', {
      method: 'POST',
      role: 'operator',
      json: {
        name: 'real',
        topic: 't',
        tool: 'echo',
        condition: { content: '.kind == "order" and ($parked | length) >= 0' },
        start_expr: { content: '{id: .id}' },
      },
    });
    expect(r.status).toBe(201);
  });

  it('binds $state beside $parked in every field; a subject whose key_expr does not compile is one line', async () => {
    const subject = { scope: 'github', kind: 'pull_request', key_expr: { content: '.pr | tostring' } };
    const declared = await h.call('/api/states/declarations/github/pull_request', {
      method: 'PUT',
      role: 'admin',
      json: { schema: {}, description: 'a pull request' },
    });
    expect(declared.status).toBe(201);
    const ok = await h.call('/api/hooks', {
      method: 'POST',
      role: 'operator',
      json: {
        name: 'stateful',
        topic: 't',
        tool: 'echo',
        subject,
        condition: { content: '($state // {}).checks != "green"' },
        extras_expr: { content: '{seen: $state}' },
      },
    });
    expect(ok.status).toBe(201);
    const bad = await h.call('/api/hooks', {
      method: 'POST',
      role: 'operator',
      json: {
        name: 'stateful2',
        topic: 't',
        tool: 'echo',
        subject: { ...subject, kind: 'Pull', key_expr: { content: '.pr | (' } },
        condition: { content: '$nothing' },
      },
    });
    expect(bad.status).toBe(400);
    // jq's program line and caret follow each compile error as lines of their own.
    expect(bad.body.error.details).toEqual([
      'condition does not compile: jq: error: $nothing is not defined at <top-level>, line 1, column 1',
      '    $nothing',
      '    ^^^^^^^^',
      'subject.kind "Pull" must match ^[a-z0-9][a-z0-9_-]*$',
      expect.stringMatching(/^subject.key_expr does not compile: /),
      '    .pr | (',
      expect.stringMatching(/^ +\^+$/),
    ]);
  });

  it('refuses a syntax error with a line naming the field and quoting jq', async () => {
    const r = await h.call('/api/hooks', {
      method: 'POST',
      role: 'operator',
      json: { name: 'bad', topic: 't', tool: 'echo', condition: { content: '.a | (' } },
    });
    expect(r.status).toBe(400);
    expect(r.body.error.details).toHaveLength(3);
    expect(r.body.error.details[0]).toMatch(/^condition does not compile: /);
    expect(r.body.error.details[0].length).toBeGreaterThan('condition does not compile: '.length + 5);
  });

  it('compiles a stored template on write with its $names declared, and checks kwargs where used', async () => {
    expect((await h.call('/api/jq-templates/jq/kind', { method: 'PUT', role: 'operator', json: { content: '.kind == $want' } })).status).toBe(201);
    const missing = await h.call('/api/hooks', {
      method: 'POST',
      role: 'operator',
      json: { name: 'tpl', topic: 't', tool: 'echo', condition: { id: 'jq/kind' } },
    });
    expect(missing.status).toBe(400);
    expect(missing.body.error.details[0]).toMatch(/^condition \(stored id 'jq\/kind'\) does not compile: .*want/);
    const ok = await h.call('/api/hooks', {
      method: 'POST',
      role: 'operator',
      json: { name: 'tpl', topic: 't', tool: 'echo', condition: { id: 'jq/kind', kwargs: { want: 'x' } } },
    });
    expect(ok.status).toBe(201);
  });
});
