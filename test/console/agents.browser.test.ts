/**
 * The console's side of the agent door, in a real headless Chromium against
 * `hookyard serve --role all`, the embedded default: an admin creates an
 * agent on the Agents page (with the IdP identities that may act as it,
 * shown in its row) and reads its token once (copied with the copy
 * button); the agent calls tools with that token through `POST /api/calls`;
 * its calls read as calls in the runs list, the runs filter by agent, a call
 * the approval policy gates shows its agent on the Approvals page and is
 * approved there, its story names the agent, the tool, the arguments, the
 * idempotency key, how it came in and who approved; a bulk discard filtered by
 * agent takes only the agent's parked call; the token is rotated and
 * the agent revoked (confirmed); a reader has no Agents page.
 * Screenshots: agents.png, agent-run-story.png and the steps between.
 */
import type { Page } from 'playwright-core';
import { eventually } from '../support/processes';
import { consoleServer, type ConsoleServer, nav, shot, UI_MS, withPage } from './browser';

// The callbacks given to page.evaluate run in the browser; this program is type-checked for node (no DOM lib).
declare const navigator: { clipboard: { readText(): Promise<string> } };
declare const document: {
  querySelector(selector: string): { getAttribute(name: string): string | null } | null;
  querySelectorAll(selector: string): Iterable<{ getAttribute(name: string): string | null }>;
};

const ADMIN = 'console-admin-token-0123456789abcdef';
const READER = 'console-reader-token-0123456789abcdef';
const AGENT = 'ci-bot';

jest.setTimeout(150_000);

describe('operator console: agents and their calls (Chromium)', () => {
  let con: ConsoleServer;

  beforeAll(async () => {
    con = await consoleServer('console-agents', { HOOKS_API_TOKENS: `admin:${ADMIN},reader:${READER}` }, ADMIN);
  });

  afterAll(() => con?.stop());

  /** The agent calls a tool with its token through the HTTP call API, not waiting: the kept run's id. */
  async function call(token: string, tool: string, args: Record<string, unknown>, key: string): Promise<string> {
    const { status, json } = await con.api('POST', '/api/calls', { tool, arguments: args, idempotency_key: key, wait_seconds: 0 }, token);
    if (status !== 200 && status !== 202) throw new Error(`POST /api/calls: ${status} ${JSON.stringify(json)}`);
    return json.id;
  }

  const statusOf = async (id: string): Promise<string> => (await con.ok('GET', `/api/hook-runs/${id}`)).status;
  const reaches = (id: string, status: string) =>
    eventually(async () => ((await statusOf(id)) === status ? true : undefined), UI_MS, `run ${id} to be ${status}`);

  it('an admin creates an agent (token once), finds its calls, approves one, reads its story, rotates and revokes it; a reader has no Agents page', async () => {
    await withPage(con.browser, async (page, errors) => {
      await story(page, errors);
    });
  });

  async function story(page: Page, errors: string[]): Promise<void> {
    await page.context().grantPermissions(['clipboard-read', 'clipboard-write'], { origin: con.url });
    await con.browser.signIn(page, ADMIN, 'admin');

    // Create: the token is shown once, with a copy button and the sentence that says so.
    await nav(page, 'Agents').click();
    await page.getByText('No agents yet.').waitFor();
    const form = page.getByRole('form', { name: 'Create an agent' });
    await form.getByLabel('Name').fill(AGENT);
    await form.getByLabel('Description').fill('deploys from CI');
    await form.getByLabel('Allowed tools').fill('echo, print');
    // Who at the IdP may act as it: a line not of the form is refused, naming it, before anything is sent.
    await form.getByLabel('IdP identities (optional)').fill('https://idp.example.com sub=alice');
    await form.getByRole('button', { name: 'Create agent' }).click();
    await page.getByRole('alert').filter({ hasText: '"sub=alice" is not subject=S or client_id=C' }).waitFor();
    await form.getByLabel('IdP identities (optional)').fill('https://idp.example.com subject=alice\nhttps://idp.example.com, client_id=ci-runner');
    await form.getByRole('button', { name: 'Create agent' }).click();
    const issued = page.locator(`[data-issued="${AGENT}"]`);
    await issued.getByText('This token is shown only now.').waitFor();
    const token = (await issued.getByTestId('agent-token').textContent())!;
    expect(token).toMatch(/^hya_/);
    await issued.getByRole('button', { name: 'Copy' }).click();
    await issued.getByText('Copied.').waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(token);
    const row = page.locator(`tr[data-agent="${AGENT}"]`);
    await row.getByText('deploys from CI').waitFor();
    await row.locator('code.allow-entry').filter({ hasText: 'print' }).waitFor();
    expect((await con.ok('GET', `/api/agents/${AGENT}`)).tools_allow).toEqual(['echo', 'print']);
    await row.locator('code.identity-entry').filter({ hasText: 'https://idp.example.com client_id=ci-runner' }).waitFor();
    await row.locator('code.identity-entry').filter({ hasText: 'https://idp.example.com subject=alice' }).waitFor();
    expect((await con.ok('GET', `/api/agents/${AGENT}`)).identities).toEqual([
      { issuer: 'https://idp.example.com', subject: 'alice' },
      { issuer: 'https://idp.example.com', client_id: 'ci-runner' },
    ]);
    await shot(page, 'agents');
    // The token is an agent's, not an operator's: the management API refuses it.
    expect([401, 403]).toContain((await con.api('GET', '/api/hook-runs', undefined, token)).status);

    // A hook's run beside the agent's calls: one call allowed at once, one the policy gates.
    await con.ok('POST', '/api/hooks', { name: 'greet', topic: 'demo', tool: 'echo' });
    const sent = await fetch(`${con.url}/universal_webhook/demo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"n":1}' });
    const [hookRun] = ((await sent.json()) as { run_ids: string[] }).run_ids;
    await con.ok('PUT', '/api/approval-policy', {
      rules: [
        { name: 'ask before ci-bot prints', agents: [AGENT], tools: ['print'], action: 'approve' },
        { name: 'ask before hooks print', tools: ['print'], action: 'approve' },
      ],
    });
    const echoed = await call(token, 'echo', { service: 'api', env: 'staging' }, 'deploy-42');
    const printed = await call(token, 'print', { note: 'ship it' }, 'print-7');
    await reaches(echoed, 'succeeded');
    await reaches(hookRun!, 'succeeded');
    await reaches(printed, 'parked');

    // The runs list: an agent's call reads as one, a hook's run names its hook; the filter by agent keeps only the agent's.
    await nav(page, 'Runs').click();
    await page
      .locator(`tr[data-run="${echoed}"] .agent-call`)
      .filter({ hasText: `agent ${AGENT} → tool echo` })
      .waitFor();
    await page.locator(`tr[data-run="${hookRun}"]`).getByText('greet', { exact: true }).waitFor();
    const filters = page.getByRole('form', { name: 'Filter runs' });
    await filters.getByLabel('Agent').fill(AGENT);
    await filters.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/agent=ci-bot/);
    await page.waitForFunction(
      (want) => {
        const ids = [...document.querySelectorAll('tr[data-run]')].map((tr) => tr.getAttribute('data-run'));
        return (
          document.querySelector('table.runs')?.getAttribute('aria-busy') === 'false' && ids.length === want.length && want.every((id) => ids.includes(id))
        );
      },
      [echoed, printed],
    );
    // Bulk actions need a status (as for hooks).
    expect(await page.getByRole('button', { name: /all matching/ }).count()).toBe(0);
    await shot(page, 'agent-runs-filtered');
    // Hook and agent together: the API's refusal, inline.
    await filters.getByLabel('Hook').selectOption('greet');
    await filters.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('alert').filter({ hasText: 'give hook or agent, not both' }).waitFor();

    // The Approvals page names the agent that asks, with the call's arguments checked against the approval's hash.
    await nav(page, 'Approvals').click();
    const card = page.locator('li.approval').filter({ hasText: printed });
    await card.getByRole('heading', { name: `print asked by agent ${AGENT}` }).waitFor();
    await card.getByTestId('approval-agent').filter({ hasText: AGENT }).waitFor();
    await card.locator('pre').filter({ hasText: '"note": "ship it"' }).waitFor();
    await card.getByTestId('args-check').filter({ hasText: 'SHA-256 matches' }).waitFor();
    await shot(page, 'agent-approval');
    // Approve asks for confirmation; the reason is given in the dialog.
    await card.getByRole('button', { name: 'Approve' }).click();
    const answer = page.getByRole('dialog');
    await answer.getByLabel('Reason (optional, kept with the answer)').fill('release window');
    await answer.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('No open approvals.').waitFor();
    await reaches(printed, 'succeeded');

    // The story: the agent, the tool, the arguments, the idempotency key, how it came in, who approved; no hook page link.
    await page.goto(`${con.url}/console#/runs/${printed}`);
    await page.locator('h1').filter({ hasText: printed }).locator('.status').filter({ hasText: 'succeeded' }).waitFor();
    await page.getByTestId('run-agent').filter({ hasText: AGENT }).waitFor();
    await page.getByTestId('run-tool').filter({ hasText: 'print' }).waitFor();
    await page.getByTestId('run-via').filter({ hasText: 'HTTP (POST /api/calls)' }).waitFor();
    await page.getByTestId('run-idempotency-key').filter({ hasText: 'print-7' }).waitFor();
    await page.locator('pre[aria-label="Arguments"]').filter({ hasText: '"note": "ship it"' }).waitFor();
    await page
      .getByTestId('run-approval')
      .filter({ hasText: /^approved by \S+ via api at .+ \(“release window”\); asked by rule ask before ci-bot prints$/ })
      .waitFor();
    expect(await page.locator('a[href*="#/hooks/"]').count()).toBe(0);
    expect(await page.getByRole('link', { name: `← calls of agent ${AGENT}` }).getAttribute('href')).toBe('#/runs?agent=ci-bot');
    await shot(page, 'agent-run-story');
    await page.goto(`${con.url}/console#/runs/${echoed}`);
    await page.getByTestId('run-tool').filter({ hasText: 'echo' }).waitFor();
    await page.getByTestId('run-idempotency-key').filter({ hasText: 'deploy-42' }).waitFor();
    expect(await page.getByTestId('run-approval').count()).toBe(0);

    // A bulk discard filtered by agent takes the agent's parked call and leaves a hook's parked run alone.
    await con.ok('POST', '/api/hooks', { name: 'ask', topic: 'asks', tool: 'print' });
    const asked = await fetch(`${con.url}/universal_webhook/asks`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"n":2}' });
    const [hookParked] = ((await asked.json()) as { run_ids: string[] }).run_ids;
    const agentParked = await call(token, 'print', { note: 'not now' }, 'print-8');
    await reaches(hookParked!, 'parked');
    await reaches(agentParked, 'parked');
    await page.goto(`${con.url}/console#/runs?agent=${AGENT}&status=parked`);
    await page.locator(`tr[data-run="${agentParked}"]`).waitFor();
    await page.getByRole('button', { name: 'Discard all matching…' }).click();
    await page.getByRole('dialog').getByText(`Discard 1 parked run of agent ${AGENT}?`).waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Discard 1' }).click();
    await page.getByTestId('bulk-progress').filter({ hasText: 'Discarded 1 of 1.' }).waitFor();
    expect(await statusOf(agentParked)).toBe('discarded');
    expect(await statusOf(hookParked!)).toBe('parked');

    // Rotate (confirmed): a new token, shown once; the old one is no longer the agent's.
    await nav(page, 'Agents').click();
    await row.getByRole('button', { name: `Rotate the token of ${AGENT}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Rotate' }).click();
    await issued.getByText('(rotated)').waitFor();
    const rotated = (await issued.getByTestId('agent-token').textContent())!;
    expect(rotated).toMatch(/^hya_/);
    expect(rotated).not.toBe(token);
    // The agent door takes the new token and refuses the old one.
    expect((await con.api('GET', `/api/calls/${echoed}`, undefined, rotated)).status).toBe(200);
    expect((await con.api('GET', `/api/calls/${echoed}`, undefined, token)).status).toBe(401);

    // Revoke: cancelling the confirmation keeps the agent; confirming removes it.
    await row.getByRole('button', { name: `Revoke ${AGENT}` }).click();
    await page.getByRole('dialog').getByRole('button', { name: 'Cancel' }).click();
    expect((await con.api('GET', `/api/agents/${AGENT}`)).status).toBe(200);
    await row.getByRole('button', { name: `Revoke ${AGENT}` }).click();
    await page.getByRole('dialog').getByText(`Revoke agent ${AGENT}?`).waitFor();
    await page.getByRole('dialog').getByRole('button', { name: 'Revoke' }).click();
    await page.getByText('No agents yet.').waitFor();
    expect(await issued.count()).toBe(0);
    expect((await con.api('GET', `/api/agents/${AGENT}`)).status).toBe(404);
    expect((await con.api('GET', `/api/calls/${echoed}`, undefined, rotated)).status).toBe(401);
    // Its calls stay readable.
    expect((await con.ok('GET', `/api/hook-runs?agent=${AGENT}`)).runs.map((r: { id: string }) => r.id).sort()).toEqual([echoed, printed, agentParked].sort());
    expect(errors).toEqual([]);

    // A reader: no Agents page in the nav, and its route is no page; the agent's calls still read as calls.
    const reader = await con.browser.newPage();
    const r = reader.page;
    await con.browser.signIn(r, READER, 'reader');
    expect(await nav(r, 'Agents').count()).toBe(0);
    await r.goto(`${con.url}/console#/agents`);
    await r.getByRole('alert').filter({ hasText: 'no console page /agents' }).waitFor();
    await r.goto(`${con.url}/console#/runs?agent=${AGENT}`);
    await r
      .locator(`tr[data-run="${echoed}"] .agent-call`)
      .filter({ hasText: `agent ${AGENT} → tool echo` })
      .waitFor();
    expect(reader.errors).toEqual([]);
  }
});
