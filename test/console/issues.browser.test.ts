/**
 * The console's Issues view in a real headless Chromium against
 * `hookyard serve --role all`: failed runs grouped by hook, error kind and
 * masked message, with count, first / last seen (with their zone), a sample
 * run and a link to the group's runs; an operator retries one group and
 * discards another (each confirmed) while the group of the same hook and kind
 * beside it stays as it was; the overview lists the top groups; a reader sees
 * the groups without the buttons. Screenshots: issues-view.png,
 * overview-top-failures.png.
 */
import type { Page } from 'playwright-core';
import { eventually } from '../support/processes';
import { consoleServer, type ConsoleServer, nav, shot, UI_MS, withPage } from './browser';

const OPERATOR = 'issues-operator-token-0123456789abcdef';
const READER = 'issues-reader-token-0123456789abcdef';

jest.setTimeout(120_000);

describe('operator console: issues, failures grouped by cause (Chromium)', () => {
  let con: ConsoleServer;

  beforeAll(async () => {
    con = await consoleServer('console-issues', { HOOKS_API_TOKENS: `operator:${OPERATOR},reader:${READER}`, HOOKS_DOOR_RATE: '0' }, OPERATOR);
  });

  afterAll(() => con?.stop());

  /** The failed runs of a hook with `failed` history lines each, once there are `n`. */
  const failedOf = (hook: string, n: number, failedLines = 1) =>
    eventually(
      async () => {
        const runs = (await con.ok('GET', `/api/hook-runs?hook=${hook}&status=failed&limit=500`)).runs as any[];
        const settled = runs.filter((r) => r.history.filter((h: any) => h.event === 'failed').length >= failedLines);
        return settled.length >= n ? runs : undefined;
      },
      UI_MS,
      `${n} failed run(s) of ${hook}`,
    );

  it('groups failures by cause; an operator retries and discards one group at a time; the overview lists the top ones; a reader only reads', async () => {
    await withPage(con.browser, async (page, errors) => {
      await story(page);
      expect(errors).toEqual([]);
    });
  });

  async function story(page: Page): Promise<void> {
    // Two hooks whose condition raises the payload's message (bad_input, held as failed at once).
    for (const name of ['orders', 'billing']) await con.ok('POST', '/api/hooks', { name, topic: name, tool: 'echo', condition: { content: 'error(.msg)' } });
    const messages: [string, string][] = [
      ['orders', 'connect ECONNREFUSED 10.0.0.5:8080'],
      ['orders', 'quota exceeded for ann@example.com'],
      ['orders', 'connect ECONNREFUSED 10.0.0.7:9090'],
      ['billing', 'order 3f2b8a1e-9c4d-4e5f-a6b7-c8d9e0f1a2b3 not found in ledger'],
      ['orders', 'connect ECONNREFUSED 10.0.0.9:8080'],
      ['orders', 'quota exceeded for bob@example.org'],
      ['orders', 'connect ECONNREFUSED [fd00::7]:443'],
    ];
    for (const [topic, msg] of messages) expect((await con.send(topic, { msg })).status).toBe(200);
    await failedOf('orders', 6);
    await failedOf('billing', 1);

    await con.browser.signIn(page, OPERATOR, 'operator');
    await nav(page, 'Issues').click();
    await page.getByRole('heading', { name: 'Issues' }).waitFor();
    const rows = page.locator('table.issues-table tbody tr');
    await page.getByTestId('issues-window').getByText('3 groups in the newest 7 failed runs.').waitFor();
    expect(await rows.count()).toBe(3);
    const refused = rows.filter({ hasText: 'connect ECONNREFUSED <ip>' });
    const quota = rows.filter({ hasText: 'quota exceeded for <email>' });
    // Most runs first: 4 refused, then 2 quota, then 1 ledger; the sample is the newest message as it was.
    expect(await rows.first().getAttribute('data-group')).toBe(await refused.getAttribute('data-group'));
    await refused.locator('td.count').getByText('4').waitFor();
    // A condition's error reads "hook 'orders' condition: jq: error: <message>".
    await refused.getByText(/^e\.g\. .*connect ECONNREFUSED \[fd00::7\]:443$/).waitFor();
    await quota.locator('td.count').getByText('2').waitFor();
    await rows.filter({ hasText: 'order <uuid> not found in ledger' }).getByRole('cell', { name: 'billing', exact: true }).waitFor();
    // First and last seen carry their zone (the browser's: UTC here) and how long ago.
    const seen = refused.locator('time');
    expect(await seen.count()).toBe(2);
    for (const t of await seen.allTextContents()) expect(t).toMatch(/\d{2}:\d{2}:\d{2}.*(UTC|GMT)[^(]*\((just now|\d+ min ago)\)$/);
    await shot(page, 'issues-view');

    // The group's runs: the runs list filtered to this hook, kind and fingerprint.
    const refusedFp = (await refused.getAttribute('data-group'))!;
    await refused.getByRole('link', { name: 'all 4 runs' }).click();
    await page.getByTestId('group-filter').getByText(`fingerprint ${refusedFp}`).waitFor();
    const runRows = page.locator('table.runs tbody tr');
    await eventually(async () => ((await runRows.count()) === 4 ? true : undefined), UI_MS, 'the 4 runs of the group');
    await page.goBack();
    await page.getByRole('heading', { name: 'Issues' }).waitFor();

    // Retry one group: counted, confirmed; only its runs run again (they fail again: the condition still raises).
    const dialog = page.getByRole('dialog');
    await refused.getByRole('button', { name: 'Retry group…' }).click();
    await dialog.getByText(/^Retry 4 failed runs of hook orders that failed with bad_input: “.*connect ECONNREFUSED <ip>”\?$/).waitFor();
    await dialog.getByRole('button', { name: 'Retry 4' }).click();
    await page.getByTestId('issues-progress').getByText('Retried 4 of 4 runs of hook orders (bad_input).').waitFor();
    const orders = await failedOf('orders', 4, 2);
    const failedLines = (text: string) =>
      orders.filter((r) => r.error.message.includes(text)).map((r) => r.history.filter((h: any) => h.event === 'failed').length);
    expect(failedLines('ECONNREFUSED')).toEqual([2, 2, 2, 2]);
    expect(failedLines('quota exceeded')).toEqual([1, 1]);

    // Discard another group of the same hook and kind: it goes; the retried group stays.
    await quota.getByRole('button', { name: 'Discard group…' }).click();
    await dialog.getByText(/^Discard 2 failed runs of hook orders that failed with bad_input: “.*quota exceeded for <email>”\?$/).waitFor();
    await dialog.getByRole('button', { name: 'Discard 2' }).click();
    await page.getByTestId('issues-progress').getByText('Discarded 2 of 2 runs of hook orders (bad_input).').waitFor();
    await page.getByTestId('issues-window').getByText('2 groups in the newest 5 failed runs.').waitFor();
    await quota.waitFor({ state: 'detached' });
    expect(await quota.count()).toBe(0);
    await refused.locator('td.count').getByText('4').waitFor();
    expect((await con.ok('GET', '/api/hook-runs?hook=orders&status=discarded')).runs.map((r: any) => r.error.message.replace(/^.*error: /, '')).sort()).toEqual(
      ['quota exceeded for ann@example.com', 'quota exceeded for bob@example.org'],
    );

    // The overview's top failures: the groups, largest first, each a link to its runs.
    await nav(page, 'Overview').click();
    const top = page.getByTestId('top-failures');
    await top.getByText('2 groups in the newest 5 failed runs.').waitFor();
    expect(await top.locator('li').allTextContents()).toEqual([
      expect.stringMatching(/^4 runs orders bad_input .*connect ECONNREFUSED <ip> last seen .*UTC/),
      expect.stringMatching(/^1 run billing bad_input .*order <uuid> not found in ledger last seen .*UTC/),
    ]);
    await shot(page, 'overview-top-failures');
    await top.getByRole('link', { name: 'All issues' }).click();
    await page.getByRole('heading', { name: 'Issues' }).waitFor();

    // A reader sees the groups, not the buttons.
    const { page: readerPage, errors: readerErrors } = await con.browser.newPage();
    await con.browser.signIn(readerPage, READER, 'reader');
    await nav(readerPage, 'Issues').click();
    await readerPage.getByTestId('issues-window').getByText('2 groups in the newest 5 failed runs.').waitFor();
    expect(await readerPage.getByRole('button', { name: /Retry group|Discard group/ }).count()).toBe(0);
    expect(readerErrors).toEqual([]);
  }
});
