/**
 * The operator console in a real headless Chromium (Debian's `chromium`,
 * driven by playwright-core) against `hookyard serve --role all`, the
 * embedded default: sign in, register a hook through the form (the dry run
 * checks its condition where the server has one), send an event and watch
 * its run appear without a reload, see a run appear the moment it is
 * accepted (still pending: the only worker is held by a tool call the test
 * keeps open) and the overview count it, read its story, make a run fail,
 * fix its hook through the edit form and retry it from the page, retry and
 * discard a filtered selection of failed runs in bulk through the API's bulk
 * routes (counted, confirmed), filter the runs
 * by a delivery id and a since time (and see a backwards range refused
 * inline), approve a run the approval policy parked, and check that a
 * reader sees no operator button. The hook form offers the declared states
 * and names their templates.
 * A screenshot of each screen goes to test/console/screenshots/ (gitignored).
 */
import type { Page } from 'playwright-core';
import { startMockServer, type MockServer } from '../support/http-recorder';
import { eventually } from '../support/processes';
import { consoleServer, type ConsoleServer, nav, shot, UI_MS, withPage } from './browser';

// The callbacks given to page.evaluate and page.waitForFunction run in the browser. This program is
// type-checked for node (no DOM lib), so the few browser globals they touch are declared here.
interface PageElement {
  textContent: string | null;
  getAttribute(name: string): string | null;
}
declare const document: { querySelector(selector: string): PageElement | null; querySelectorAll(selector: string): Iterable<PageElement> };
declare const sessionStorage: { getItem(key: string): string | null };
declare const window: Record<string, unknown>;

const ADMIN = 'console-admin-token-0123456789abcdef';
const READER = 'console-reader-token-0123456789abcdef';

jest.setTimeout(120_000);

describe('operator console in Chromium', () => {
  let con: ConsoleServer;
  // A tool endpoint that answers only when the test says so: while it holds a call, the one worker is busy.
  let held: MockServer | undefined;
  let heldUrl: string;
  const waiting: Array<() => void> = [];
  let calls = 0;

  beforeAll(async () => {
    held = await startMockServer(() => {
      calls += 1;
      return new Promise((answer) => waiting.push(() => answer({ body: '{"ok":true}' })));
    });
    heldUrl = `${held.url}/hold`;
    con = await consoleServer(
      'console',
      {
        HOOKS_API_TOKENS: `admin:${ADMIN},reader:${READER}`,
        // One worker, so a run waits (pending) while the held tool call runs; the webhook tool may reach the test's loopback endpoint.
        HOOKS_MAX_WORKERS: '1',
        HOOKS_OUTBOUND_ALLOW_NETS: '127.0.0.0/8',
      },
      ADMIN,
    );
    // A declared state: the hook form offers it and its templates under the subject's fields.
    await con.ok('PUT', '/api/states/declarations/people/sender', {
      schema: { type: 'object' },
      description: 'who sent the event',
      templates: { key_expr: { content: '.sender' } },
    });
  });

  afterAll(async () => {
    await con?.stop();
    for (const release of waiting.splice(0)) release();
    await held?.close();
  });

  const newPage = () => con.browser.newPage();
  const signIn = (page: Page, token: string, role: string) => con.browser.signIn(page, token, role);

  const send = (topic: string, payload: unknown): Promise<any> => con.send(topic, payload).then((r) => r.json());

  it('an operator registers a hook, watches its run arrive, reads its story, retries a failed run and approves a parked one; a reader sees no operator button', async () => {
    // On a failure: the screen as it was when a step timed out, and what the page said.
    await withPage(con.browser, (page, errors) => story(page, errors));
  });

  async function story(page: Page, errors: string[]): Promise<void> {
    // Sign in; the token stays in this tab's sessionStorage.
    await page.goto(`${con.url}/console`);
    await page.getByLabel('API token').waitFor();
    await shot(page, '01-sign-in');
    await signIn(page, ADMIN, 'admin');
    expect(await page.evaluate(() => sessionStorage.getItem('hookyard.token'))).toBe(ADMIN);
    await page.getByRole('heading', { name: 'Overview' }).waitFor();
    await page.getByTestId('held-failed').filter({ hasText: /^\d+$/ }).waitFor();
    await shot(page, '02-overview');

    // Register a hook through the form generated from the hook schema.
    await nav(page, 'Hooks').click();
    await page.getByRole('link', { name: 'Register a hook' }).click();
    await page.getByRole('textbox', { name: 'name', exact: true }).fill('greet');
    await page.getByRole('textbox', { name: 'topic', exact: true }).fill('demo');
    await page.getByRole('combobox', { name: 'tool', exact: true }).selectOption('echo');
    await page.getByRole('textbox', { name: 'tool_kwargs', exact: true }).fill('{"greeting": "hello"}');
    await page.getByLabel('Sample payload (JSON)').fill('{"action": "opened", "sender": "ada"}');
    const doc = (await (await fetch(`${con.url}/openapi.json`)).json()) as { paths: Record<string, unknown> };
    if (doc.paths['/api/hooks/dry-run']) {
      // A jq that does not compile is said under its field as it is typed, and the line goes when it is fixed.
      await page.getByRole('textbox', { name: 'condition', exact: true }).fill('.action ==');
      await page.getByTestId('jq-error-condition').filter({ hasText: 'condition does not compile' }).waitFor();
    }
    await page.getByRole('textbox', { name: 'condition', exact: true }).fill('.action == "opened"');
    await page.waitForFunction(() => document.querySelector('[data-testid="jq-error-condition"]')?.textContent === '');
    // Every jq field of the schema has the editor, the subject's key_expr (inside an object) too.
    expect(await page.locator('.cm-editor [data-field="subject.key_expr"]').count()).toBe(1);
    // Picking a declared state fills scope and kind.
    await page.getByRole('combobox', { name: 'declared state', exact: true }).selectOption('people/sender');
    expect(await page.getByRole('textbox', { name: 'subject.kind', exact: true }).inputValue()).toBe('sender');
    await page.getByRole('textbox', { name: 'subject.scope', exact: true }).fill('people');
    await page.getByRole('textbox', { name: 'subject.kind', exact: true }).fill('sender');
    await page
      .getByTestId('declared-state')
      .filter({ hasText: 'Declared state people/sender: who sent the event. Templates to attach (subject.templates): key_expr.' })
      .waitFor();
    await page.getByRole('textbox', { name: 'subject.key_expr', exact: true }).fill('.sender');
    // The hook's own approval rules: one group of inputs per rule, `when` in the jq editor with its compile error inline.
    await page.getByRole('button', { name: 'Add a rule to approval' }).click();
    const rule = page.getByRole('group', { name: 'approval[0]' });
    await rule.getByRole('textbox', { name: 'tools', exact: true }).fill('echo');
    await rule.getByRole('combobox', { name: 'action', exact: true }).selectOption('deny');
    const when = page.getByRole('textbox', { name: 'approval[0].when', exact: true });
    if (doc.paths['/api/hooks/dry-run']) {
      await when.fill('.args.greeting ==');
      await page.getByTestId('jq-error-approval[0].when').filter({ hasText: 'approval[0].when does not compile' }).waitFor();
    }
    await when.fill('.args.greeting == "nope"');
    await page.getByRole('textbox', { name: 'start_expr', exact: true }).fill('{who: .sender}');
    if (doc.paths['/api/hooks/dry-run']) {
      // The live dry run evaluates the condition over the sample payload.
      await page.getByTestId('dry-run-outcome').filter({ hasText: 'start' }).waitFor();
      await page.getByTestId('dry-run-answer').filter({ hasText: 'condition matched' }).waitFor();
      // start_expr merged with the static kwargs, as the run will call the tool.
      await page.locator('pre[aria-label="Tool arguments"]').filter({ hasText: '"who": "ada"' }).filter({ hasText: '"greeting": "hello"' }).waitFor();
    } else {
      await page.getByTestId('dry-run-answer').filter({ hasText: 'This server has no dry run' }).waitFor();
    }
    await shot(page, '03-hook-form');
    await page.getByRole('button', { name: 'Register' }).click();
    await page.locator('tr[data-hook="greet"]').waitFor();
    expect(await con.ok('GET', '/api/hooks/greet')).toMatchObject({
      condition: { content: '.action == "opened"' },
      subject: { scope: 'people', kind: 'sender', key_expr: { content: '.sender' } },
      approval: [{ tools: ['echo'], action: 'deny', when: '.args.greeting == "nope"' }],
    });
    await shot(page, '04-hooks');

    // The runs page is open and live; an event's run appears without a reload.
    await nav(page, 'Runs').click();
    await page.getByText('live', { exact: true }).waitFor();
    await page.evaluate(() => ((window as any).__noReload = true));
    expect(await send('demo', { action: 'opened', sender: 'ada' })).toEqual({
      status: 'accepted',
      runs: 1,
      run_ids: [expect.any(String)],
      event_id: expect.any(String),
    });
    const row = page.locator('tr[data-run]').filter({ hasText: 'greet' }).filter({ hasText: 'succeeded' });
    await row.waitFor();
    expect(await page.evaluate(() => (window as any).__noReload)).toBe(true);

    // Live on accept: the first run holds the only worker in a tool call the test keeps open, so the second
    // stays pending; only its `accepted` event can put it on the page.
    await con.ok('POST', '/api/hooks', { name: 'slow', topic: 'slow', tool: 'webhook', tool_kwargs: { url: heldUrl } });
    const [busy] = (await send('slow', { n: 1 })).run_ids;
    await eventually(async () => (calls === 1 ? true : undefined), UI_MS, 'the held tool call of the first run');
    const [queued] = (await send('slow', { n: 2 })).run_ids;
    const rowOf = (id: string) => page.locator(`tr[data-run="${id}"]`);
    await rowOf(busy).filter({ hasText: 'running' }).waitFor();
    await rowOf(queued).filter({ hasText: 'pending' }).waitFor();
    expect((await con.ok('GET', `/api/hook-runs/${queued}`)).status).toBe('pending');
    await shot(page, '05-runs-live');
    // The overview counts it too, and follows it as it ends.
    await nav(page, 'Overview').click();
    await page.getByTestId('overview-live').filter({ hasText: 'live' }).waitFor();
    const hourValue = async (key: string) => Number((await page.getByTestId(`hour-${key}`).locator('.value').textContent())!.replace(/\D/g, ''));
    await page.waitForFunction(() => !document.querySelector('[data-testid="hour-accepted"] .value')?.textContent?.includes('…'));
    const [accepted, succeeded] = [await hourValue('accepted'), await hourValue('succeeded')];
    // The state cards are the store's exact counts: one run holds the worker, one waits.
    await page.getByTestId('running').filter({ hasText: /^1$/ }).waitFor();
    await page.getByTestId('pending').filter({ hasText: /^1$/ }).waitFor();
    const [third] = (await send('slow', { n: 3 })).run_ids;
    await page
      .getByTestId('hour-accepted')
      .locator('.value')
      .filter({ hasText: new RegExp(`^${accepted + 1}$`) })
      .waitFor();
    // Release every held call (each run calls once): all three end, and the overview moves them to succeeded live.
    await eventually(
      async () => {
        for (const release of waiting.splice(0)) release();
        const states = await Promise.all([busy, queued, third].map(async (id) => (await con.ok('GET', `/api/hook-runs/${id}`)).status));
        return states.every((st) => st === 'succeeded') ? true : undefined;
      },
      UI_MS,
      'the three slow runs to succeed',
    );
    await page
      .getByTestId('hour-succeeded')
      .locator('.value')
      .filter({ hasText: new RegExp(`^${succeeded + 3}$`) })
      .waitFor();
    await page.getByTestId('running').filter({ hasText: /^0$/ }).waitFor();
    await page.getByTestId('pending').filter({ hasText: /^0$/ }).waitFor();
    expect(await page.evaluate(() => (window as any).__noReload)).toBe(true);
    await shot(page, '02b-overview-live');
    await nav(page, 'Runs').click();
    await rowOf(queued).filter({ hasText: 'succeeded' }).waitFor();

    // Its story: the timeline, the payload, the tool's input and result.
    await row.locator('a[href^="#/runs/"]').click();
    await page.getByRole('heading', { name: /^Run / }).waitFor();
    const timeline = page.locator('ol.timeline');
    await timeline.getByText('Kept', { exact: true }).waitFor();
    await timeline.getByText('Claimed', { exact: true }).waitFor();
    await timeline.getByText('Succeeded', { exact: true }).waitFor();
    await page.locator('pre[aria-label="Payload"]').filter({ hasText: '"sender": "ada"' }).waitFor();
    await page.locator('pre[aria-label="Result"]').filter({ hasText: '"who": "ada"' }).waitFor();
    // Its provenance: an open topic's event came through the HTTP door, unverified.
    await page.locator('dl.facts').getByText('through the http door, not verified', { exact: true }).waitFor();
    await shot(page, '06-run-story');

    // A run that fails: its hook's condition raises on this payload (bad_input fails at once).
    await con.ok('POST', '/api/hooks', { name: 'strict', topic: 'orders', tool: 'echo', condition: { content: '.order.id > 0' } });
    await send('orders', { order: 'A-17' });
    const failed = await eventually(async () => (await con.ok('GET', '/api/hook-runs?hook=strict&status=failed')).runs[0], UI_MS, 'the run of strict to fail');
    await page.goto(`${con.url}/console#/runs?status=failed`);
    await page.locator(`tr[data-run="${failed.id}"]`).getByRole('link', { name: failed.id, exact: true }).click();
    await page.getByTestId('error-kind').filter({ hasText: 'bad_input' }).waitFor();
    await shot(page, '07-failed-run');

    // Fix the hook through the edit form, then retry the run from its page.
    await page.goto(`${con.url}/console#/hooks/strict/edit`);
    const condition = page.getByRole('textbox', { name: 'condition', exact: true });
    await condition.filter({ hasText: '.order.id > 0' }).waitFor();
    await condition.fill('(.order | type) == "string"');
    await page.getByRole('button', { name: 'Save' }).click();
    await page.locator('tr[data-hook="strict"]').filter({ hasText: '(.order | type) == "string"' }).waitFor();
    await page.goto(`${con.url}/console#/runs/${failed.id}`);
    await page.getByRole('button', { name: 'Retry' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText(`Run ${failed.id} again as a fresh run?`).waitFor();
    await dialog.getByRole('button', { name: 'Retry' }).click();
    // The page follows the run live: retried, then succeeded.
    await page.locator('h1 .status').filter({ hasText: 'succeeded' }).waitFor();
    await timeline.getByText('Retried by an operator', { exact: true }).waitFor();
    await shot(page, '08-run-retried');

    // Bulk: every failed run of a hook, counted, confirmed, discarded.
    await con.ok('POST', '/api/hooks', { name: 'brittle', topic: 'brittle', tool: 'echo', condition: { content: '.x.y' } });
    for (let n = 0; n < 3; n++) await send('brittle', { x: 'not an object' });
    await eventually(
      async () => ((await con.ok('GET', '/api/hook-runs?hook=brittle&status=failed')).runs.length === 3 ? true : undefined),
      UI_MS,
      'three failed runs of brittle',
    );
    const calledApi: string[] = [];
    page.on('request', (req) => {
      if (new URL(req.url()).pathname.startsWith('/api/hook-runs')) calledApi.push(`${req.method()} ${new URL(req.url()).pathname}`);
    });
    await page.goto(`${con.url}/console#/runs?status=failed&hook=brittle`);
    await page.locator('tr[data-run]').nth(2).waitFor();
    // A bulk retry: counted by the API (a dry run), confirmed, done in one call; they fail again (the hook is unchanged).
    await page.getByRole('button', { name: 'Retry all matching…' }).click();
    await dialog.getByText('Retry 3 failed runs of hook brittle?').waitFor();
    await dialog.getByRole('button', { name: 'Retry 3' }).click();
    await page.getByTestId('bulk-progress').filter({ hasText: 'Retried 3 of 3.' }).waitFor();
    await eventually(
      async () => {
        const runs = (await con.ok('GET', '/api/hook-runs?hook=brittle&status=failed')).runs;
        return runs.length === 3 && runs.every((r: any) => r.history.some((h: any) => h.event === 'retried')) ? true : undefined;
      },
      UI_MS,
      'the three retried runs of brittle to fail again',
    );
    // Back in the failed list without a reload: each left it when retried and came back when it failed again.
    await page.waitForFunction(() => [...document.querySelectorAll('tr[data-run]')].filter((tr) => tr.textContent!.includes('failed')).length === 3);
    await page.getByRole('button', { name: 'Discard all matching…' }).click();
    await dialog.getByText('Discard 3 failed runs of hook brittle?').waitFor();
    await shot(page, '09-bulk-confirm');
    await dialog.getByRole('button', { name: 'Discard 3' }).click();
    await page.getByTestId('bulk-progress').filter({ hasText: 'Discarded 3 of 3.' }).waitFor();
    await page.getByText('No runs match.').waitFor();
    expect((await con.ok('GET', '/api/hook-runs?hook=brittle&status=discarded')).runs).toHaveLength(3);
    // Through the bulk routes: a dry run and the act for each, never one call per run.
    expect(calledApi.filter((c) => c.startsWith('POST') || c.startsWith('DELETE'))).toEqual([
      'POST /api/hook-runs/retry',
      'POST /api/hook-runs/retry',
      'POST /api/hook-runs/discard',
      'POST /api/hook-runs/discard',
    ]);

    // Filters: a delivery id (the topic's dedupe key makes `.body.id` one) and a since time that leaves the older runs out.
    await con.ok('PUT', '/api/hooks/topics/picked/dedupe', { expr: '.body.id' });
    await con.ok('POST', '/api/hooks', { name: 'pick', topic: 'picked', tool: 'echo' });
    const [first] = (await send('picked', { id: 'order-1' })).run_ids;
    const [second] = (await send('picked', { id: 'order-2' })).run_ids;
    const shown = (ids: string[]) =>
      page.waitForFunction((want) => {
        const rows = [...document.querySelectorAll('tr[data-run]')].map((tr) => tr.getAttribute('data-run'));
        return (
          document.querySelector('table.runs')?.getAttribute('aria-busy') === 'false' && rows.length === want.length && want.every((id) => rows.includes(id))
        );
      }, ids);
    await nav(page, 'Runs').click();
    const filters = page.getByRole('form', { name: 'Filter runs' });
    await filters.getByLabel('Delivery id').fill('order-1');
    await filters.getByRole('button', { name: 'Apply' }).click();
    await shown([first]);
    expect(page.url()).toContain('delivery_id=order-1');
    // Since the second run was kept (its id starts with that time): only it, none of the older runs.
    const keptAt = new Date(parseInt(second.slice(0, 10), 36)).toISOString();
    // The page's local time, in the shortest form a datetime-local input keeps (what `fill` checks it took).
    const local = (iso: string) =>
      page.evaluate((at) => {
        const d = new Date(at);
        const p = (n: number, w = 2) => String(n).padStart(w, '0');
        const ms = d.getMilliseconds() ? `.${p(d.getMilliseconds(), 3).replace(/0+$/, '')}` : '';
        const sec = d.getSeconds() || ms ? `:${p(d.getSeconds())}${ms}` : '';
        return `${d.getFullYear()}-${p(d.getMonth() + 1)}-${p(d.getDate())}T${p(d.getHours())}:${p(d.getMinutes())}${sec}`;
      }, iso);
    await filters.getByLabel('Delivery id').fill('');
    await filters.getByLabel('Since').fill(await local(keptAt));
    await filters.getByRole('button', { name: 'Apply' }).click();
    await shown([second]);
    expect(decodeURIComponent(page.url())).toContain(`since=${keptAt}`);
    await shot(page, '09b-runs-filtered');
    // A range that ends before it starts: the API's 400, inline.
    await filters.getByLabel('Until').fill(await local(new Date(Date.parse(keptAt) - 60_000).toISOString()));
    await filters.getByRole('button', { name: 'Apply' }).click();
    await page.getByRole('alert').filter({ hasText: 'since must not be after until' }).waitFor();
    await shown([]);
    expect(await page.getByRole('button', { name: /all matching/ }).count()).toBe(0);

    // A parked run: the deployment's policy asks before `print`; the operator approves it from the Approvals page.
    await con.ok('PUT', '/api/approval-policy', { rules: [{ name: 'ask before print', tools: ['print'], action: 'approve' }] });
    await con.ok('POST', '/api/hooks', { name: 'ask', topic: 'asks', tool: 'print', start_expr: { content: '{note: .note}' } });
    await send('asks', { note: 'ship it' });
    const parkedRun = await eventually(async () => (await con.ok('GET', '/api/hook-runs?hook=ask&status=parked')).runs[0], UI_MS, 'the run of ask to park');
    await nav(page, 'Overview').click();
    await page.getByTestId('open-approvals').filter({ hasText: '1' }).waitFor();
    await nav(page, 'Approvals').click();
    const card = page.locator('li.approval').filter({ hasText: parkedRun.id });
    await card.getByText('ask before print').waitFor();
    await card.locator('pre').filter({ hasText: '"note": "ship it"' }).waitFor();
    await card.getByTestId('args-check').filter({ hasText: 'SHA-256 matches' }).waitFor();
    await shot(page, '10-approvals');
    // Approve asks for confirmation; the reason is given in the dialog.
    await card.getByRole('button', { name: 'Approve' }).click();
    const answer = page.getByRole('dialog');
    await answer.getByLabel('Reason (optional, kept with the answer)').fill('looks right');
    await answer.getByRole('button', { name: 'Approve' }).click();
    await page.getByText('No open approvals.').waitFor();
    await eventually(
      async () => ((await con.ok('GET', `/api/hook-runs/${parkedRun.id}`)).status === 'succeeded' ? true : undefined),
      UI_MS,
      'the approved run to succeed',
    );
    // One more asks, left open for the reader to see; it shows here without a reload once its run parks.
    await page.evaluate(() => ((window as any).__noReload = true));
    await send('asks', { note: 'for the reader' });
    const openRun = await eventually(
      async () => (await con.ok('GET', '/api/hook-runs?hook=ask&status=parked')).runs[0],
      UI_MS,
      'the second run of ask to park',
    );
    await page.locator('li.approval').filter({ hasText: openRun.id }).getByText('ask before print').waitFor();
    expect(await page.evaluate(() => (window as any).__noReload)).toBe(true);

    // A service kept unchecked that cannot be read: the executor's discovery fails, and the Tools page says so.
    await con.ok('POST', '/api/tools?discover=false', { name: 'down', kind: 'openapi', endpoint: 'http://127.0.0.1:9' });
    await con.ok('GET', '/api/tools');
    await eventually(async () => ((await con.ok('GET', '/api/tools/down')).discovery.last_error ? true : undefined), UI_MS, 'the discovery error of down');
    await nav(page, 'Tools').click();
    await page.locator('tr[data-tool="echo"]').waitFor();
    await page.getByRole('heading', { name: 'Registered tool services' }).waitFor();
    await page.getByRole('columnheader', { name: 'Last discovery error' }).waitFor();
    await page
      .locator('tr[data-service="down"] .discovery-error')
      .filter({ hasText: /forbidden|unavailable/ })
      .waitFor();
    await shot(page, '11-tools');
    await nav(page, 'Verifiers').click();
    await page.getByRole('cell', { name: 'demo' }).waitFor();
    await shot(page, '12-verifiers');

    // Sign out: the token is gone from the tab.
    await page.getByRole('button', { name: 'Sign out' }).click();
    await page.getByLabel('API token').waitFor();
    expect(await page.evaluate(() => sessionStorage.getItem('hookyard.token'))).toBeNull();
    expect(errors).toEqual([]);

    // A reader: every page readable, no button that would 403.
    const reader = await newPage();
    const r = reader.page;
    await signIn(r, READER, 'reader');
    await expect(nav(r, 'Verifiers').count()).resolves.toBe(0);
    await r.goto(`${con.url}/console#/runs/${failed.id}`);
    await r.locator('h1 .status').filter({ hasText: 'succeeded' }).waitFor();
    await r.getByRole('heading', { name: 'Timeline' }).waitFor();
    expect(await r.getByRole('button', { name: /Retry|Discard/ }).count()).toBe(0);
    await shot(r, '13-reader-run');
    await r.goto(`${con.url}/console#/approvals`);
    await r.locator('li.approval').filter({ hasText: openRun.id }).getByText('ask before print').waitFor();
    expect(await r.getByRole('button', { name: /Approve|Deny/ }).count()).toBe(0);
    await shot(r, '14-reader-approvals');
    await r.goto(`${con.url}/console#/runs?status=failed`);
    await r.getByRole('heading', { name: 'Runs' }).waitFor();
    await r
      .getByText(/live|connecting|unavailable/)
      .first()
      .waitFor();
    expect(await r.getByRole('button', { name: /all matching/ }).count()).toBe(0);
    await r.goto(`${con.url}/console#/hooks`);
    await r.locator('tr[data-hook="greet"]').waitFor();
    expect(await r.getByRole('link', { name: 'Register a hook' }).count()).toBe(0);
    expect(await r.getByRole('button', { name: /Remove/ }).count()).toBe(0);
    expect(await r.getByRole('link', { name: /^Edit/ }).count()).toBe(0);
    await r.goto(`${con.url}/console#/tools`);
    await r.locator('tr[data-tool="echo"]').waitFor();
    expect(await r.getByRole('heading', { name: 'Registered tool services' }).count()).toBe(0);
    // A reader sees each registration's last discovery error, not the records.
    await r
      .locator('tr[data-discovery="down"] .discovery-error')
      .filter({ hasText: /forbidden|unavailable/ })
      .waitFor();
    await shot(r, '15-reader-hooks');
    expect(reader.errors).toEqual([]);
  }

  /** `what` settled within `ms`, or a failure naming it (a tab spinning in a render loop answers nothing). */
  function bounded<T>(what: string, ms: number, p: Promise<T>): Promise<T> {
    let timer: ReturnType<typeof setTimeout> | undefined;
    const late = new Promise<never>((_, reject) => {
      timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms (the tab is stuck)`)), ms);
    });
    return Promise.race([p, late]).finally(() => clearTimeout(timer));
  }

  it('going straight from a partly filled Register form to the Edit form of a hook shows that hook, not the typed values', async () => {
    const { page, errors } = await newPage();
    try {
      await con.ok('POST', '/api/hooks', {
        name: 'route-edit',
        topic: 'route-edit-topic',
        tool: 'echo',
        condition: { content: '.from_api == 1' },
      });
      await signIn(page, ADMIN, 'admin');
      await page.goto(`${con.url}/console#/hooks/new`);
      await page.getByRole('heading', { name: 'Register a hook' }).waitFor();
      await page.getByRole('textbox', { name: 'name', exact: true }).fill('typed-in-register');
      await page.getByRole('textbox', { name: 'topic', exact: true }).fill('typed-topic');
      const condition = page.getByRole('textbox', { name: 'condition', exact: true });
      await condition.click();
      await page.keyboard.press('ControlOrMeta+a');
      await page.keyboard.type('.typed_in_register');
      await condition.filter({ hasText: '.typed_in_register' }).waitFor({ timeout: 10_000 });
      // Straight to the Edit form, with no page in between.
      await page.evaluate(() => {
        (globalThis as unknown as { location: { hash: string } }).location.hash = '#/hooks/route-edit/edit';
      });
      await page.getByRole('heading', { name: 'Edit hook route-edit' }).waitFor({ timeout: 10_000 });
      await condition.filter({ hasText: '.from_api == 1' }).waitFor({ timeout: 10_000 });
      expect(await page.getByRole('textbox', { name: 'name', exact: true }).inputValue()).toBe('route-edit');
      expect(await page.getByRole('textbox', { name: 'topic', exact: true }).inputValue()).toBe('route-edit-topic');
      expect(await condition.textContent()).toBe('.from_api == 1');
      expect(errors).toEqual([]);
    } catch (err) {
      await bounded('failure screenshot', 5_000, shot(page, 'failure-register-to-edit')).catch(() => undefined);
      throw new Error(`${(err as Error).message}\npage errors: ${JSON.stringify(errors)}`, { cause: err });
    }
  });

  it('the Unrouted page lists an event on a topic with no hook; an operator replays it once a hook is registered', async () => {
    const { page, errors } = await newPage();
    expect(await send('consol-typo', { n: 1 })).toMatchObject({ runs: 0, unrouted: true });
    await signIn(page, ADMIN, 'admin');
    await nav(page, 'Unrouted').click();
    const row = page.getByTestId('unrouted-consol-typo');
    await row.getByText('{"n":1}').waitFor();
    await con.ok('POST', '/api/hooks', { name: 'consol-typo', topic: 'consol-typo', tool: 'echo', tool_kwargs: {} });
    await row.getByRole('button', { name: 'Replay consol-typo' }).click();
    await page.getByRole('status').filter({ hasText: 'Replayed 1 event(s) on consol-typo: 1 run(s) kept.' }).waitFor();
    await shot(page, '16-unrouted-replayed');
    expect(errors).toEqual([]);
  });
});
