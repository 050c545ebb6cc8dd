/**
 * A dry run cannot disagree with a run: the same hook, event, `$parked`,
 * `$state`, approval policy and allowlists go to `POST /api/hooks/dry-run`'s
 * function and to a real executor (memory store, real jq), and both must
 * come to the same outcome with the same words: skipped; the door contract's
 * act (ids, extras handed on); the tool's arguments and extras; denied (the
 * rule and its sentence); parked for approval (the rule, its answer hooks);
 * or the error that ends the run (its kind and message, the allowlist's
 * refusal included). Each run goes once without a dispatch hint (planned
 * after its claim) and once with one (planned before it) where a plan may.
 */
import fc from 'fast-check';
import { TOOL_EXTRA_IDEMPOTENCY_KEY, type ApprovalRule, type Hook, type Run } from '@hookyard/core';
import { createJqEngine, type HookyardJqEngine } from '@hookyard/jq';
import { approvalGate } from '@hookyard/plan';
import { LocalRepo } from '@hookyard/tools';
import { dryRun, type DryRunReport } from '../../services/ingress/src/hooks/dry-run';
import { declareOpen, harness, hook, testTool, type Harness, type ToolCall } from '../../services/executor/test/fixtures';

const SUBJECT = { scope: 'repo', kind: 'pr', key: 'k1' };
/** Absent, a value that lets the run go on, or one that stops it: weighted so that every outcome comes up often. */
const pick = <T>(good: T[], bad: T[]) =>
  fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 4 },
    { arbitrary: fc.constantFrom(...good), weight: 4 },
    { arbitrary: fc.constantFrom(...bad), weight: 1 },
  );
const jqField = (good: string[], bad: string[]) => pick(good, bad).map((content) => (content === undefined ? undefined : { content }));

const hookArb = fc.record({
  condition: jqField(['true', 'false', '.n > 2', '$state.done != true', '($parked | length) == 0'], ['.a', '.n, .n', 'empty', 'error("no condition")']),
  start_expr: jqField(['{x: .n}', '{x: .n, ref: "from payload"}', 'null'], ['[1]', 'error("no start")', '.a']),
  extras_expr: jqField(['{pr: .n}', 'null', '{seen: $state}'], ['[1]', '{"tai42/x": 1}']),
  cancel_expr: jqField(['[]', 'null', 'if .n > 3 then [$parked[].id] else [] end', '[$parked[] | select(.kind == "wait") | .id]'], ['"x"', '[.a]']),
  resume_expr: jqField(['null', 'if .n == 2 then $parked | map({id, payload: {n: 1}}) else null end'], ['{}', '[{id: 5}]']),
  // Mostly the key the parked wait has, so the door contract often finds it.
  subject: fc.oneof(
    { arbitrary: fc.constant(undefined), weight: 3 },
    { arbitrary: fc.constant('"k1"'), weight: 4 },
    { arbitrary: fc.constantFrom('"k\\(.n)"', '.missing', '.n'), weight: 2 },
  ),
  tool_kwargs: fc.constantFrom({}, { ref: 'main' }),
  tools_allow: pick([['*']], [['other'], ['*', '!t']]),
  approval: pick<ApprovalRule[]>(
    [[{ tools: ['*'], when: '.args.x == 3', action: 'approve', timeout_seconds: 30 }]],
    [[{ tools: ['t'], action: 'deny', message: 'not from this hook' }]],
  ),
});

const worldArb = fc.record({
  payload: fc.record({ n: fc.integer({ min: 0, max: 5 }), a: fc.constantFrom('yes', true, false, null) }),
  toolsAllow: fc.oneof({ arbitrary: fc.constant(['*']), weight: 4 }, fc.constantFrom(['*', '!t'], ['t'], ['other'])),
  rules: fc.oneof(
    { arbitrary: fc.constant<ApprovalRule[]>([]), weight: 2 },
    {
      arbitrary: fc.constant<ApprovalRule[]>([
        { name: 'big', tools: ['t'], when: '.args.x > 2', action: 'approve', timeout_seconds: 60, answer_hooks: ['answers'] },
      ]),
      weight: 4,
    },
    fc.constantFrom<ApprovalRule[]>(
      [{ tools: ['t'], action: 'deny' }],
      [{ tools: ['*'], when: '.subject != null and .agent == null', action: 'deny', message: 'no subjects here' }],
      [{ name: 'broken', tools: ['t'], when: '.args.x | error("rule broke")', action: 'allow' }],
    ),
  ),
  parked: fc.boolean(),
  state: fc.constantFrom(null, { done: true }, { done: false }),
  hinted: fc.boolean(),
});

/** What a run came to, in words both sides can say. */
type View =
  | { outcome: 'skipped' }
  | { outcome: 'act'; verb: string; ids: string[]; handOn: unknown }
  | { outcome: 'start'; kwargs: unknown; extras: Record<string, unknown> }
  | { outcome: 'denied'; rule: string | null; message: string }
  | { outcome: 'approval'; rule: string | null; answer_hooks: string[] }
  | { outcome: 'error'; kind: string; message: string };

const withoutKey = (extras: Record<string, unknown>) => {
  const { [TOOL_EXTRA_IDEMPOTENCY_KEY]: key, ...rest } = extras;
  return { rest, key };
};

function dryView(r: DryRunReport): View {
  switch (r.outcome) {
    case 'skipped':
      return { outcome: 'skipped' };
    case 'act': {
      const ids = r.act!.verb === 'cancel' ? r.act!.ids : r.act!.verb === 'take' ? [r.act!.id] : r.act!.items.map((i) => i.id);
      return { outcome: 'act', verb: r.act!.verb, ids, handOn: r.extras };
    }
    case 'start':
      return { outcome: 'start', kwargs: r.kwargs, extras: withoutKey(r.extras!).rest };
    case 'denied':
      return { outcome: 'denied', rule: r.approval!.rule, message: r.approval!.message };
    case 'approval':
      return { outcome: 'approval', rule: r.approval!.rule, answer_hooks: r.approval!.answer_hooks ?? [] };
    default:
      return { outcome: 'error', kind: r.error!.kind, message: r.error!.message };
  }
}

async function runView(h: Harness, run: Run, calls: ToolCall[]): Promise<View> {
  if (run.status === 'skipped') return { outcome: 'skipped' };
  if (run.acted === 'cancel' || run.acted === 'resume') {
    const first = await h.stores.interactions.get(run.acted_ids[0]!);
    return { outcome: 'act', verb: run.acted, ids: run.acted_ids, handOn: first?.resolution?.extras ?? null };
  }
  if (run.status === 'denied') {
    const result = run.result as { rule: string | null; message: string };
    return { outcome: 'denied', rule: result.rule, message: result.message };
  }
  if (run.status === 'parked') {
    const i = (await h.stores.interactions.get(run.interaction!))!;
    return { outcome: 'approval', rule: i.rule, answer_hooks: i.answer_hooks };
  }
  if (run.status === 'succeeded' && calls.length === 1) {
    const { rest, key } = withoutKey(calls[0]!.ctx.extras);
    expect(key).toBe(run.id);
    return { outcome: 'start', kwargs: calls[0]!.args, extras: rest };
  }
  if (run.error) return { outcome: 'error', kind: run.error.kind, message: run.error.message };
  throw new Error(`run ended ${run.status} with ${calls.length} tool calls and no error: ${JSON.stringify(run)}`);
}

describe('the dry run and the executor make one plan', () => {
  let jq: HookyardJqEngine;
  beforeAll(async () => {
    jq = await createJqEngine({ timeoutMs: 2000, workers: 1 });
  });
  afterAll(async () => {
    await jq.close();
  });

  it('for any hook, event, $parked, $state, policy and allowlists, a dry run reports what the run does, with the same words', async () => {
    const outcomes = new Set<string>();
    await fc.assert(
      fc.asyncProperty(hookArb, worldArb, async (fields, world) => {
        const tool = testTool('t', async () => 'done');
        const h = harness({ jq, tools: [tool], settings: { toolsAllow: [...world.toolsAllow] } });
        const at = h.clock.now();
        await declareOpen(h.stores, `${SUBJECT.scope}/${SUBJECT.kind}`);
        if (world.rules.length) await h.stores.hooks.putApprovalPolicy(world.rules, null, at);
        const actor = { door: 'api' as const, actor: 'operator:test', hook: null, now: at };
        if (world.state) await h.stores.states.set(SUBJECT, world.state, actor);
        if (world.parked) {
          // A run of another hook parked on a wait for the subject: what cancel_expr and resume_expr see in $parked.
          await h.stores.hooks.putHook(hook({ name: 'parker', topic: 'side', tool: 't' }));
          const [parkerRun] = await h.keep('side', {});
          const claimed = (await h.stores.runs.claim(parkerRun!, 'test', 60_000, at))!;
          await h.stores.interactions.park({
            run: parkerRun!,
            token: claimed.token,
            kind: 'wait',
            tool: 't',
            argsHash: 'c'.repeat(64),
            subject: SUBJECT,
            onTimeout: 'fail',
            expiresAt: at + 600_000,
            now: at,
          });
        }
        const { subject, ...rest } = fields;
        const record: Hook = hook({
          name: 'prop',
          topic: 'gh',
          tool: 't',
          ...Object.fromEntries(Object.entries(rest).filter(([, v]) => v !== undefined)),
          ...(subject ? { subject: { scope: SUBJECT.scope, kind: SUBJECT.kind, key_expr: { content: subject } } } : {}),
        });
        await h.stores.hooks.putHook(record);

        // The dry run, wired as POST /api/hooks/dry-run wires it, over the same store.
        const report = await dryRun(record, world.payload, {
          jq,
          jqTimeoutMs: h.settings.jqTimeoutMs,
          hooks: h.stores.hooks,
          interactions: h.stores.interactions,
          states: h.stores.states,
          toolsAllow: h.settings.toolsAllow,
          gate: approvalGate(new LocalRepo([tool]), h.stores.hooks, jq, h.settings),
        });

        const payloadJson = JSON.stringify(world.payload);
        const [kept] = await h.stores.runs.keepEvent({ topic: 'gh', payload: world.payload, payloadJson, now: at, dispatchGraceMs: 0 });
        await h.executor.handle(kept!.id, undefined, world.hinted ? { hook: 'prop', topic: 'gh', payloadJson } : undefined);
        const run = (await h.stores.runs.get(kept!.id))!;
        expect(await runView(h, run, tool.calls)).toEqual(dryView(report));
        outcomes.add(report.outcome);
      }),
      { numRuns: 400 },
    );
    // The cases reach every outcome a dry run reports (else the property says little).
    expect([...outcomes].sort()).toEqual(['act', 'approval', 'denied', 'error', 'refused', 'skipped', 'start']);
    // 400 cases of a dry run and a run each through jq-wasm: 27 s at a load average of 14, near the default 30 s.
  }, 180_000);
});
