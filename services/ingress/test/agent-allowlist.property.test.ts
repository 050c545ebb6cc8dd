import fc from 'fast-check';
import { agentTokenHash, loadSettings, silentLogger, systemClock, toHookyardError } from '@hookyard/core';
import { createMemoryBus } from '@hookyard/bus';
import { createMemoryStores } from '@hookyard/store';
import { AgentCalls } from '../src/agent/calls';

/**
 * What an agent sees (tools/list, the catalogue export) and what it may call
 * (tools/call, POST /api/calls) are decided by the same function: for any
 * deployment allowlist, agent allowlist, runtime allowlist and tool, a tool is
 * listed exactly when a call of it is accepted, and a runtime list never lets
 * through a tool the agent's own list or the deployment's refuses.
 */
const TOOLS = ['echo', 'print', 'deploy', 'local_shell', 'github__repos_get'];
const entry = fc.oneof(
  fc.constant('*'),
  fc.constantFrom(...TOOLS),
  fc.constantFrom(...TOOLS).map((t) => `!${t}`),
);
const list = fc.array(entry, { minLength: 1, maxLength: 4 });

describe('agent allowlists: list and call never disagree', () => {
  it('a tool is listed exactly when a call of it is accepted, and a runtime list only narrows', async () => {
    let n = 0;
    await fc.assert(
      fc.asyncProperty(list, list, fc.option(list, { nil: null }), fc.constantFrom(...TOOLS), async (deployment, agentAllow, runtime, tool) => {
        const stores = createMemoryStores();
        const settings = loadSettings({}, { toolsAllow: deployment });
        const calls = new AgentCalls({ settings, stores, bus: createMemoryBus(), clock: systemClock, logger: silentLogger() });
        n += 1;
        const agent = await stores.agents.create(
          { name: 'prop', description: null, tools_allow: agentAllow, tokenHash: agentTokenHash(`hya_${n}`) },
          Date.now(),
        );
        const listed = calls.visible(agent, runtime, TOOLS).includes(tool);
        let accepted: boolean;
        try {
          await calls.submit(agent, { tool, arguments: {}, runtimeAllow: runtime, via: 'mcp' });
          accepted = true;
        } catch (err) {
          expect(toHookyardError(err).kind).toBe('not_found');
          accepted = false;
        }
        expect(accepted).toBe(listed);
        // Narrowing only: whatever the runtime list says, nothing outside the agent's own view gets through.
        if (listed) expect(calls.visible(agent, null, TOOLS)).toContain(tool);
        // Kept exactly when accepted: a refused call leaves no run.
        expect((await stores.runs.list({}, 10)).runs).toHaveLength(accepted ? 1 : 0);
      }),
      { numRuns: 300 },
    );
  });
});
