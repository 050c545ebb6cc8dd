import { KeyLayout } from '../src/redis/keys';
import { SCRIPT_NAMES } from '../src/redis/scripts';
import type { ScriptName } from '../src/redis/scripts';
import { keySlot } from './slots';

/**
 * Redis Cluster runs a script only when its declared keys share one slot. The
 * keys each script is given, for one partition and one topic, as the stores
 * build them (redis-runs.ts, redis-hooks.ts); redis.test.ts checks the same
 * for every call of a live workload.
 */
const keys = new KeyLayout('hookyard');
const id = '01JTESTRUNID0000000000' + '02' + '00';
const p = 2;
const iid = `0000000000${'ab'.repeat(16)}02`;
const FIXTURE: Record<ScriptName, string[]> = {
  keep_event: [keys.topicHooks(p, 'orders'), keys.due(p)],
  claim: keys.runScriptKeys(p, id),
  claim_planned: keys.runScriptKeys(p, id),
  copy_policy_version: [keys.hookRevisions(p)],
  renew: keys.runScriptKeys(p, id),
  set_claim_intent: keys.runScriptKeys(p, id),
  act: keys.runScriptKeys(p, id),
  note: keys.runScriptKeys(p, id),
  complete: keys.runScriptKeys(p, id),
  fail: keys.runScriptKeys(p, id),
  schedule_retry: keys.runScriptKeys(p, id),
  release: keys.runScriptKeys(p, id),
  retry: keys.runScriptKeys(p, id),
  discard: keys.runScriptKeys(p, id),
  resolve_unknown: keys.runScriptKeys(p, id),
  replay: keys.runScriptKeys(p, id),
  sweep_due: [keys.due(p)],
  sweep_lapsed: [keys.due(p), keys.lease(p), keys.done(p)],
  sweep_expired: [keys.done(p), keys.due(p), keys.lease(p)],
  put_hook: [keys.hooks, keys.stateDeclarations, keys.stateBindings],
  remove_hook: [keys.hooks, keys.stateBindings],
  put_state_declaration: [keys.stateDeclarations],
  remove_state_declaration: [keys.stateDeclarations, keys.stateBindings],
  put_approval_policy: [keys.approvalPolicy],
  outcome_lost: keys.runScriptKeys(p, id),
  withdraw_start: keys.runScriptKeys(p, id),
  park: keys.runScriptKeys(p, id),
  resolve_interaction: [keys.interaction(p, iid), keys.due(p), keys.lease(p), keys.done(p)],
  take_interaction: [keys.interaction(p, iid)],
  expire_interactions: [keys.interactionExpiry(p), keys.due(p), keys.lease(p), keys.done(p)],
  put_state: keys.stateScriptKeys('github', 'pull_request', 'acme/api#{7}'),
  delete_state: keys.stateScriptKeys('github', 'pull_request', 'acme/api#{7}'),
  take_token: [keys.bucket('door-client', '2001:db8::1')],
  keep_hook_run: [keys.topicHooks(p, 'orders'), keys.due(p)],
  create_agent: [keys.agents, keys.agentTokens],
  rotate_agent: [keys.agents, keys.agentTokens],
  update_agent: [keys.agents],
  remove_agent: [keys.agents, keys.agentTokens],
  keep_agent_call: [keys.agentCall(p, 'ci-bot', 'ab12'), keys.due(p), keys.agentOpenCall(p, 'ci-bot', 'cd34')],
  put_trigger_link: [keys.hooks, keys.triggerTokens],
  use_trigger_link: [keys.triggerTokens],
  return_trigger_use: [keys.triggerLink('tl_abc')],
  revoke_trigger_link: [keys.triggerLink('tl_abc')],
  read_stats: [keys.stats(p, 29_000_000)],
  read_hook_totals: [keys.stats(p, 29_000_000)],
  keep_unrouted: keys.unroutedKeys('githib'),
  drop_unrouted: keys.unroutedKeys('githib'),
  record_audit: keys.auditKeys(),
};

describe('redis cluster slots', () => {
  it('computes slots as the cluster spec does', () => {
    expect(keySlot('123456789')).toBe(12739);
    expect(keySlot('{user1000}.following')).toBe(keySlot('{user1000}.followers'));
    expect(keySlot('{}x')).not.toBe(keySlot('{}y'));
  });

  it.each(SCRIPT_NAMES)('%s declares keys of one slot', (name) => {
    const declared = FIXTURE[name];
    expect(declared.length).toBeGreaterThan(0);
    expect(new Set(declared.map(keySlot)).size).toBe(1);
  });

  it('a partition key shares its slot with the keys named from its tag, not with the hook records', () => {
    expect(keySlot(keys.topicHooks(p, 'orders'))).toBe(keySlot(`${keys.tag(p)}:run:${id}`));
    expect(keySlot(keys.index(p, 'sh:failed:h'))).toBe(keySlot(keys.run(p, id)));
    expect(keySlot(keys.topic('orders'))).toBe(keySlot(keys.hooks));
    expect(keySlot(keys.meta)).toBe(keySlot(keys.hooks));
    expect(keySlot(keys.topic('orders'))).not.toBe(keySlot(keys.due(p)));
  });
});
