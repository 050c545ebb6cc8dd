/**
 * Find and group, in a real headless Chromium against `hookyard serve --role
 * all`: a jq search over what runs carry on the runs page (the window cut,
 * said so, and continued), the runs of one delivery grouped under its event,
 * and the event view (how it came in, the headers kept, the runs it became with their statuses).
 * Screenshots: runs-search.png, runs-grouped-by-event.png, event-view.png.
 */
import { eventually } from '../support/processes';
import { consoleServer, type ConsoleServer, shot, UI_MS, withPage } from './browser';

const ADMIN = 'search-admin-token-0123456789abcdef';

jest.setTimeout(120_000);

describe('operator console: search runs, group by event, the event view (Chromium)', () => {
  let con: ConsoleServer;

  beforeAll(async () => {
    con = await consoleServer('console-search', { HOOKS_API_TOKENS: `admin:${ADMIN}`, HOOKS_DOOR_RATE: '0' }, ADMIN);
  });

  afterAll(() => con?.stop());

  it('searches runs by payload (cut and continued), groups them by event, and shows one event with its runs', async () => {
    // Three hooks on one topic: ship always runs, bill only for big orders (skipped otherwise), check raises (failed).
    await con.ok('POST', '/api/hooks', { name: 'ship', topic: 'shop', tool: 'echo' });
    await con.ok('POST', '/api/hooks', { name: 'bill', topic: 'shop', tool: 'echo', condition: { content: '.order.total > 100' } });
    await con.ok('POST', '/api/hooks', { name: 'check', topic: 'shop', tool: 'echo', condition: { content: '.order.id | ascii_downcase == "x"' } });
    // The order id is each delivery's id (the topic's dedupe key).
    await con.ok('PUT', '/api/hooks/topics/shop/dedupe', { expr: '.body.order.id | tostring' });
    const orders = [
      { id: 101, total: 40, customer: 'ada' },
      { id: 102, total: 500, customer: 'bob' },
      { id: 103, total: 20, customer: 'ada' },
      { id: 104, total: 900, customer: 'ada' },
    ];
    const events: string[] = [];
    // Order 104 comes the way a shop sends it: its allowlisted headers are kept, its credentials and signature are not.
    const shopHeaders = {
      'user-agent': 'Shopify-Captain-Hook',
      'x-shopify-topic': 'orders/create',
      'x-shopify-webhook-id': 'b54557e4-bdd9-4b37-8a5f-bf7d70bcd043',
      'x-shopify-hmac-sha256': 'c2lnbmF0dXJlLXMzY3IzdA==',
      authorization: 'Bearer s3cr3t-token',
      cookie: 'session=s3cr3t-cookie',
    };
    for (const order of orders) {
      const res = await fetch(`${con.url}/universal_webhook/shop`, {
        method: 'POST',
        headers: { 'content-type': 'application/json', ...(order.id === 104 ? shopHeaders : {}) },
        body: JSON.stringify({ order }),
      });
      events.push(((await res.json()) as { event_id: string }).event_id);
    }
    await eventually(
      async () => {
        const page = await con.ok('GET', '/api/hook-runs?topic=shop');
        return page.runs.length === 12 && page.runs.every((r: any) => ['succeeded', 'skipped', 'failed'].includes(r.status)) ? true : undefined;
      },
      UI_MS * 2,
      'the 12 runs on shop to finish',
    );

    await withPage(con.browser, async (page, errors) => {
      await con.browser.signIn(page, ADMIN, 'admin');
      await page.goto(`${con.url}/console#/runs?topic=shop`);
      await page.locator('tr[data-run]').nth(11).waitFor();

      // A search typed in the box: the runs of ada's orders (3 orders x 3 hooks).
      await page.getByLabel(/^Search \(jq/).fill('.payload.order.customer == "ada"');
      await page.getByRole('button', { name: 'Apply' }).click();
      await page.getByTestId('scan').filter({ hasText: 'Searched 12 runs: 9 matched.' }).waitFor();
      // The note and the rows may land in separate renders: wait for the unmatched rows to leave.
      await page.locator('tr[data-run]').nth(9).waitFor({ state: 'detached' });
      expect(await page.locator('tr[data-run]').count()).toBe(9);
      expect(page.url()).toContain('where=');

      // A window of 5 runs per read (kept in the hash): cut, said so, and continued to the rest.
      // Newest first: 104 (3 runs) and 2 of 103's; 103's last, 102 (bob: none) and 1 of 101's; 101's last 2.
      await page.goto(`${page.url()}&scan=5`);
      const steps = ['Searched 5 runs: 5 matched.', 'Searched 5 runs: 2 matched.', 'Searched 2 runs: 2 matched.'];
      const seen = new Set<string>();
      for (const [i, text] of steps.entries()) {
        const note = page.getByTestId('scan').filter({ hasText: text });
        await note.waitFor();
        const want = Number(/(\d) matched/.exec(text)![1]);
        const ids = await eventually(
          async () => {
            // Read in one step in the page: a row read one by one can be replaced by the next render meanwhile.
            const now = await page.locator('tr[data-run]').evaluateAll((rows) => rows.map((r) => r.getAttribute('data-run') ?? ''));
            return now.length === want && now.every((id) => !seen.has(id)) ? now : undefined;
          },
          UI_MS,
          `the ${want} runs of search step ${i + 1}`,
        );
        for (const id of ids) seen.add(id);
        if (i < steps.length - 1) {
          expect(await note.textContent()).toContain('stopped at its window');
          if (i === 0) await shot(page, 'runs-search');
          await page.getByRole('link', { name: 'Continue searching' }).click();
        } else {
          expect(await note.textContent()).not.toContain('stopped');
          expect(await page.getByRole('link', { name: 'Continue searching' }).count()).toBe(0);
        }
      }
      expect(seen.size).toBe(9);

      // Grouped by event: each order's three runs together under its event (the order id is the delivery id).
      await page.goto(`${con.url}/console#/runs?topic=shop`);
      await page.locator('tr[data-run]').nth(11).waitFor();
      await page.getByLabel('Group by event').check();
      await page.locator('td.event-cell').nth(3).waitFor();
      expect(await page.locator('td.event-cell').count()).toBe(4);
      for (const cell of await page.locator('td.event-cell').allTextContents()) expect(cell).toMatch(/^10[1-4] · 3 runs$/);
      await shot(page, 'runs-grouped-by-event');

      // The event view of order 104: how it came in and the three runs it became, with their statuses.
      await page.getByRole('link', { name: '104', exact: true }).click();
      await page.getByRole('heading', { name: `Event ${events[3]}` }).waitFor();
      const rows = page.locator('table.event-runs tr[data-run]');
      await rows.nth(2).waitFor();
      const hooks = await rows.locator('td:nth-child(2)').allTextContents();
      const states = await rows.locator('td:nth-child(3)').allTextContents();
      const statuses = Object.fromEntries(hooks.map((h, i) => [h, states[i]]));
      expect(statuses).toEqual({ ship: 'succeeded', bill: 'succeeded', check: 'failed' });
      const facts = await page.locator('dl.facts').textContent();
      expect(facts).toContain('through the http door, not verified');
      expect(facts).toContain('104');
      // The headers kept: the allowlisted ones only, never the authorization, the cookie or the signature.
      const kept = page.getByRole('table', { name: 'Headers kept' });
      const names = await kept.locator('th').allTextContents();
      expect(names).toEqual(['content-type', 'content-length', 'user-agent', 'x-shopify-topic', 'x-shopify-webhook-id']);
      expect(await kept.locator('tr', { hasText: 'x-shopify-topic' }).locator('td').textContent()).toBe('orders/create');
      expect(facts).not.toMatch(/s3cr3t|authorization|cookie|hmac/i);
      await shot(page, 'event-view');

      // A run's story links to its event.
      await rows.first().getByRole('link').click();
      await page.getByRole('link', { name: events[3]!, exact: true }).waitFor();
      expect(errors).toEqual([]);
    });
  });
});
