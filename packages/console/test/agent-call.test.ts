import { agentCallOf, agentCallWords, agentOf } from '../src/agent-call';
import type { Run } from '../src/api';

/** A run as the console reads it: only the fields these helpers look at matter. */
function run(fields: Partial<Run>): Run {
  return { id: 'r1', hook: 'greet', topic: 'demo', payload: null, ...fields } as Run;
}

/** How the console tells an agent's call from a hook's run, and what it reads from the call. */
describe("console: an agent's call read from its run", () => {
  it('names the agent from the wire field, or from the hook slot on a live row that has neither agent nor door', () => {
    expect(agentOf(run({ hook: 'agent:ci-bot', door: 'agent', agent: 'ci-bot' }))).toBe('ci-bot');
    expect(agentOf(run({ hook: 'agent:ci-bot' }))).toBe('ci-bot');
    expect(agentOf(run({ hook: 'greet', door: 'http', agent: null }))).toBeNull();
    expect(agentOf(run({ hook: 'greet' }))).toBeNull();
    // A run that says it came through another door is a hook's, whatever its slot holds.
    expect(agentOf(run({ hook: 'agent:ci-bot', door: 'http' }))).toBeNull();
  });

  it('reads the tool, arguments, idempotency key, via and runtime allowlist from the payload', () => {
    const call = agentCallOf(
      run({
        hook: 'agent:ci-bot',
        door: 'agent',
        agent: 'ci-bot',
        payload: { tool: 'deploy', arguments: { env: 'prod' }, tools_allow: ['deploy', 7], idempotency_key: 'k-1', via: 'mcp' },
      }),
    );
    expect(call).toEqual({ agent: 'ci-bot', tool: 'deploy', arguments: { env: 'prod' }, idempotency_key: 'k-1', via: 'mcp', tools_allow: ['deploy'] });
    expect(agentCallWords(call!)).toBe('agent ci-bot → tool deploy');
  });

  it('a live row (no payload) still reads as the agent, without a tool; a hook run is no call', () => {
    const call = agentCallOf(run({ hook: 'agent:ci-bot', payload: undefined }));
    expect(call).toMatchObject({ agent: 'ci-bot', tool: null, idempotency_key: null, via: null, tools_allow: null });
    expect(agentCallWords(call!)).toBe('agent ci-bot');
    expect(agentCallOf(run({ hook: 'greet', door: 'http', payload: { tool: 'x' } }))).toBeNull();
  });
});
