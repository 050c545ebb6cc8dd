/**
 * The overview's charts in a real headless Chromium against `hookyard serve
 * --role all`, the embedded default: real runs (succeeded, failed, skipped)
 * go through the door and the executor, the store's per-minute counters count
 * them, and the overview draws them with uPlot (its own chunk, its stylesheet
 * bundled: no CSP error), lists the top failing hooks, switches to the last
 * day and narrows to one hook. Screenshot: overview-charts.png.
 */
import type { Page } from 'playwright-core';
import { eventually } from '../support/processes';
import { consoleServer, type ConsoleServer, shot, UI_MS, withPage } from './browser';

const ADMIN = 'charts-admin-token-0123456789abcdef';
const READER = 'charts-reader-token-0123456789abcdef';

jest.setTimeout(120_000);

describe('operator console: charts of the runs (Chromium)', () => {
  let con: ConsoleServer;

  beforeAll(async () => {
    con = await consoleServer('console-charts', { HOOKS_API_TOKENS: `admin:${ADMIN},reader:${READER}` }, ADMIN);
  });

  afterAll(() => con?.stop());

  it('draws runs by outcome, both percentiles and the top failing hooks from real runs, over an hour or a day, in total or per hook', async () => {
    await con.ok('POST', '/api/hooks', { name: 'greet', topic: 'greet', tool: 'echo' });
    await con.ok('POST', '/api/hooks', { name: 'brittle', topic: 'brittle', tool: 'echo', condition: { content: '.x.y' } });
    await con.ok('POST', '/api/hooks', { name: 'picky', topic: 'picky', tool: 'echo', condition: { content: '.go' } });
    for (let i = 0; i < 8; i += 1) await con.send('greet', { i });
    for (let i = 0; i < 3; i += 1) await con.send('brittle', { x: 'not an object' });
    for (let i = 0; i < 2; i += 1) await con.send('picky', { go: false });
    // The counters, as the API answers them, once every run has ended.
    const total = (s: any, k: string) => s.points.reduce((n: number, p: any) => n + p[k], 0);
    const series = await eventually(
      async () => {
        const s = await con.ok('GET', '/api/stats/series?window=1h', undefined, READER);
        return total(s, 'accepted') === 13 && total(s, 'succeeded') === 8 && total(s, 'failed') === 3 && total(s, 'skipped') === 2 ? s : undefined;
      },
      UI_MS,
      'the 13 runs counted: 8 succeeded, 3 failed, 2 skipped',
    );
    expect(series.top_failing).toEqual([{ hook: 'brittle', failed: 3, succeeded: 0, accepted: 3 }]);
    expect(series.points.reduce((n: number, p: any) => n + p.tool_duration_ms.count, 0)).toBe(13);

    await withPage(con.browser, async (page, errors) => {
      await charts(page);
      // uPlot's stylesheet is bundled and it sets only element.style properties: no CSP violation, no script error.
      expect(errors).toEqual([]);
    });
  });

  async function charts(page: Page): Promise<void> {
    await con.browser.signIn(page, READER, 'reader');
    const section = page.getByTestId('charts');
    for (const id of ['chart-runs', 'chart-accept', 'chart-duration']) await section.getByTestId(id).locator('canvas').waitFor();
    await section.getByTestId('chart-runs').getByText('Runs per minute').waitFor();
    // Each line is in the legend; uPlot's stylesheet applied (its legend is a table laid out by the bundled CSS).
    for (const label of ['accepted', 'succeeded', 'failed', 'skipped', 'denied']) {
      await section.getByTestId('chart-runs').locator('.u-legend .u-label', { hasText: label }).first().waitFor();
    }
    await section.getByTestId('chart-duration').locator('.u-legend .u-label', { hasText: 'p99' }).waitFor();
    expect(await page.evaluate(() => getComputedStyle(document.querySelector('.uplot .u-over')).position)).toBe('absolute');
    const failing = section.getByTestId('top-failing');
    await failing.locator('tr', { hasText: 'brittle' }).waitFor();
    expect(await failing.locator('tbody tr').count()).toBe(1);
    expect(await failing.getByRole('link', { name: 'brittle' }).getAttribute('href')).toBe('#/runs?hook=brittle&status=failed');
    await shot(page, 'overview-charts');

    // The last day: 15-minute steps.
    await section.getByTestId('charts-window-24h').click();
    await section.getByTestId('chart-runs').getByText('Runs per 15 minutes').waitFor();
    expect(await section.getByTestId('charts-window-24h').getAttribute('aria-pressed')).toBe('true');
    // One hook: the series of greet only, and the top failing hooks stay those of the window.
    const asked: string[] = [];
    page.on('request', (req) => {
      if (new URL(req.url()).pathname === '/api/stats/series') asked.push(new URL(req.url()).search);
    });
    await section.getByTestId('charts-hook').selectOption('greet');
    await eventually(async () => (asked.includes('?window=24h&hook=greet') ? true : undefined), UI_MS, 'the series of greet to be read');
    await section.getByTestId('chart-runs').locator('canvas').waitFor();
    await failing.locator('tr', { hasText: 'brittle' }).waitFor();
  }
});

// The callbacks given to page.evaluate run in the browser; this program is type-checked for node (no DOM lib).
declare const document: { querySelector(selector: string): unknown };
declare function getComputedStyle(el: unknown): { position: string };
