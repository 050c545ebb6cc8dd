/**
 * The manual's metrics table (docs/operations.md) against a running server's /metrics: every
 * `tai42_hook_runs_*` family the server exposes is in the table with its type,
 * and the table names nothing the server does not expose.
 */
import { manualSection } from '../support/manual';
import { requireBuiltCli, startRole, type RoleProcess } from '../support/processes';

describe('README metrics table', () => {
  let server: RoleProcess;
  beforeAll(async () => {
    requireBuiltCli();
    server = startRole('metrics-table', 'all', { HOOKS_API_TOKENS: 'admin:metrics-table-token-0123456789' });
    await server.waitListening();
  });
  afterAll(async () => {
    await server?.stop();
  });

  it('lists exactly the tai42_hook_runs_* families /metrics serves, each with its type', async () => {
    const text = await (await fetch(`${server.url}/metrics`)).text();
    const served = [...text.matchAll(/^# TYPE (tai42_hook_runs_\w+) (\w+)$/gm)].map((m) => `${m[1]} ${m[2]}`).sort();
    const section = manualSection('docs/operations.md', '## Monitor with Prometheus');
    const documented = [...section.matchAll(/^\| `(tai42_hook_runs_\w+)` \| (\w+) \|/gm)].map((m) => `${m[1]} ${m[2]}`).sort();
    expect(served.length).toBeGreaterThan(10);
    expect(documented).toEqual(served);
  });
});
