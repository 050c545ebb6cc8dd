/**
 * Operating agents in the console, in a real headless Chromium against
 * `hookyard serve --role all`: an agent's row gives its last call and its
 * calls, denials, approvals and failures of the last 24 hours; Edit changes
 * its allowlist (the token stays and reaches the new tools); Connect shows
 * the client configurations with this deployment's /mcp URL and a
 * placeholder for the token (the real token right after it is made); the
 * Approvals page and the run story show the rule's message (why a person is
 * asked); the Overview counts denied and cancelled runs of the last hour, and
 * its charts name the agents denied most.
 * Screenshots: agents-operate.png, approval-message.png.
 */
import { eventually } from '../support/processes';
import { consoleServer, type ConsoleServer, nav, shot, UI_MS, withPage } from './browser';

const ADMIN = 'console-operate-admin-token-0123456789';
const AGENT = 'ops-bot';
const WHY = 'printing costs paper: check the note first';

jest.setTimeout(150_000);

describe('operator console: operating agents (Chromium)', () => {
  let con: ConsoleServer;

  beforeAll(async () => {
    con = await consoleServer('console-agents-operate', { HOOKS_API_TOKENS: `admin:${ADMIN}`, HOOKS_DOOR_RATE: '0' }, ADMIN);
  });

  afterAll(() => con?.stop());

  const call = async (token: string, tool: string, args: Record<string, unknown>): Promise<{ status: number; id: string }> => {
    const { status, json } = await con.api('POST', '/api/calls', { tool, arguments: args, wait_seconds: 0 }, token);
    return { status, id: json?.id ?? json?.run?.id ?? '' };
  };
  const statusOf = async (id: string): Promise<string> => (await con.ok('GET', `/api/hook-runs/${id}`)).status;
  const reaches = (id: string, status: string) =>
    eventually(async () => ((await statusOf(id)) === status ? true : undefined), UI_MS, `run ${id} to be ${status}`);

  it('usage, Edit, Connect, the approval message, and the Denied and Cancelled cards', async () => {
    await withPage(con.browser, async (page) => {
      await con.browser.signIn(page, ADMIN, 'admin');
      await nav(page, 'Agents').click();
      const form = page.getByRole('form', { name: 'Create an agent' });
      await form.getByLabel('Name').fill(AGENT);
      await form.getByLabel('Allowed tools').fill('echo, print');
      await form.getByRole('button', { name: 'Create agent' }).click();
      const issued = page.locator(`[data-issued="${AGENT}"]`);
      const token = (await issued.getByTestId('agent-token').textContent())!;
      // Right after it was made, the client configurations carry the token itself and this deployment's door.
      const mcp = `${new URL(con.url).origin}/mcp`;
      expect(await issued.getByTestId('connect-claude-code').textContent()).toBe(
        `claude mcp add --transport http ${AGENT} ${mcp} --header "Authorization: Bearer ${token}"`,
      );
      expect(JSON.parse((await issued.getByTestId('connect-vscode').textContent())!)).toEqual({
        servers: { [AGENT]: { type: 'http', url: mcp, headers: { Authorization: `Bearer ${token}` } } },
      });
      await issued.getByRole('button', { name: 'I have copied it' }).click();

      // Calls: one denied by a rule, one waiting on an approval whose rule says why, one cancelled by an operator.
      await con.ok('PUT', '/api/approval-policy', {
        rules: [
          { name: 'no loud echoes', agents: [AGENT], tools: ['echo'], when: '.args.loud == true', action: 'deny', message: 'say it quietly' },
          { name: 'paper', agents: [AGENT], tools: ['print'], action: 'approve', message: WHY },
        ],
      });
      const denied = await call(token, 'echo', { loud: true });
      const asked = await call(token, 'print', { note: 'ship it' });
      const cancelled = await call(token, 'print', { note: 'never mind' });
      await reaches(denied.id, 'denied');
      await reaches(asked.id, 'parked');
      await reaches(cancelled.id, 'parked');
      const open = await con.ok('GET', `/api/interactions?status=open&run=${cancelled.id}`);
      await con.ok('POST', `/api/interactions/${open.interactions[0].id}/cancel`, {});
      await reaches(cancelled.id, 'cancelled');

      // The row: last use and the 24 h counts.
      await page.reload();
      const row = page.locator(`tr[data-agent="${AGENT}"]`);
      await row.getByTestId('agent-usage').filter({ hasText: '3 calls · 1 denied · 2 approvals · 0 failed' }).waitFor();
      await row.getByTestId('agent-last-used').locator('time').waitFor();

      // Edit: the allowlist changes, the token stays and now reaches only what the new list gives.
      await row.getByRole('button', { name: `Edit ${AGENT}` }).click();
      const edit = page.getByRole('form', { name: `Edit agent ${AGENT}` });
      expect(await edit.getByLabel('Allowed tools').inputValue()).toBe('echo, print');
      await edit.getByLabel('Allowed tools').fill('echo');
      await edit.getByLabel('Description').fill('prints no more');
      await edit.getByRole('button', { name: 'Save' }).click();
      await row.getByText('prints no more').waitFor();
      expect(await edit.count()).toBe(0);
      expect((await con.ok('GET', `/api/agents/${AGENT}`)).tools_allow).toEqual(['echo']);
      const tools = await con.api('GET', '/api/tools?format=mcp', undefined, token);
      expect((tools.json.tools as Array<{ name: string }>).map((t) => t.name)).toEqual(['echo']);
      // A bad entry: the API's line, inline; nothing changes.
      await row.getByRole('button', { name: `Edit ${AGENT}` }).click();
      await edit.getByLabel('Allowed tools').fill('echo, bad$tool');
      await edit.getByRole('button', { name: 'Save' }).click();
      await page.getByRole('alert').filter({ hasText: 'tools_allow[1] "bad$tool" is not *, a tool name or !name' }).waitFor();
      await edit.getByRole('button', { name: 'Cancel' }).click();

      // Connect: the same configurations, with a placeholder where the token goes (it is not shown again).
      await row.getByRole('button', { name: `Connect a client as ${AGENT}` }).click();
      const panel = page.locator(`[data-connect="${AGENT}"]`);
      expect(await panel.getByTestId('connect-claude-code').textContent()).toBe(
        `claude mcp add --transport http ${AGENT} ${mcp} --header "Authorization: Bearer <agent token>"`,
      );
      expect(JSON.parse((await panel.getByTestId('connect-cursor').textContent())!)).toEqual({
        mcpServers: { [AGENT]: { url: mcp, headers: { Authorization: 'Bearer <agent token>' } } },
      });
      const remote = JSON.parse((await panel.getByTestId('connect-mcp-remote').textContent())!);
      expect(remote.mcpServers[AGENT].args).toEqual(['-y', 'mcp-remote', mcp, '--header', 'Authorization:${AUTH_HEADER}']);
      expect(await panel.textContent()).not.toContain(token);
      await shot(page, 'agents-operate');

      // Approvals: the rule's message says why the approver is asked.
      await nav(page, 'Approvals').click();
      const card = page.locator('li.approval').filter({ hasText: asked.id });
      await card.getByTestId('approval-message').filter({ hasText: WHY }).waitFor();
      await shot(page, 'approval-message');
      // The run story too.
      await page.goto(`${con.url}/console#/runs/${asked.id}`);
      await page.getByTestId('run-approval-message').filter({ hasText: WHY }).waitFor();

      // Overview: the last hour counts the denied and the cancelled runs.
      await nav(page, 'Overview').click();
      await page.getByTestId('hour-denied').locator('.value').filter({ hasText: /^1$/ }).waitFor();
      await page.getByTestId('hour-cancelled').locator('.value').filter({ hasText: /^1$/ }).waitFor();
      // Its charts: the agents denied most.
      const deniedBy = page.getByTestId('denied-by-agent');
      await deniedBy.locator('tr').filter({ hasText: AGENT }).filter({ hasText: '1' }).waitFor();
    });
  });
});
