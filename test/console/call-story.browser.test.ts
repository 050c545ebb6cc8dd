/**
 * An agent's call told as a call, in a real headless Chromium against the
 * embedded default: its run story names the call (not a delivery) and links
 * to the call as it came in, whose page reads as a call too (its idempotency
 * key, its one run, the call as kept); a webhook's run still reads as a
 * delivery. Screenshots: call-story.png, call-event.png.
 */
import { eventually } from '../support/processes';
import { consoleServer, type ConsoleServer, shot, UI_MS, withPage } from './browser';

const ADMIN = 'console-admin-token-0123456789abcdef';

jest.setTimeout(120_000);

describe('operator console: an agent call reads as a call (Chromium)', () => {
  let con: ConsoleServer;

  beforeAll(async () => {
    con = await consoleServer('console-call-story', { HOOKS_API_TOKENS: `admin:${ADMIN}` }, ADMIN);
  });

  afterAll(() => con?.stop());

  it("the run story and the event page of an agent's call say call, not delivery; a webhook's run keeps its delivery", async () => {
    const { token } = await con.ok('POST', '/api/agents', { name: 'story-bot', tools_allow: ['echo'] });
    const called = await con.api('POST', '/api/calls', { tool: 'echo', arguments: { text: 'hi' }, idempotency_key: 'story-1', wait_seconds: 0 }, token);
    expect([200, 202]).toContain(called.status);
    const id: string = called.json.id;
    await eventually(async () => ((await con.ok('GET', `/api/hook-runs/${id}`)).status === 'succeeded' ? true : undefined), UI_MS, 'the call to succeed');
    await con.ok('POST', '/api/hooks', { name: 'greet', topic: 'demo', tool: 'echo' });
    const sent = await fetch(`${con.url}/universal_webhook/demo`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"n":1}' });
    const [hookRun] = ((await sent.json()) as { run_ids: string[] }).run_ids;

    await withPage(con.browser, async (page, errors) => {
      await con.browser.signIn(page, ADMIN, 'admin');
      await page.goto(`${con.url}/console#/runs/${id}`);
      const story = page.locator('article.story');
      await story.getByRole('heading', { name: new RegExp(`Run ${id}`) }).waitFor();
      await story.getByText('(the call as it came in, and its run)').waitFor();
      expect(await story.textContent()).not.toMatch(/deliver/i);
      await shot(page, 'call-story');

      await story.getByRole('link', { name: id.slice(0, 24), exact: true }).click();
      const event = page.locator('article.event');
      await event.getByRole('heading', { name: /^Call / }).waitFor();
      await event.getByText('Its run', { exact: true }).waitFor();
      await event.locator('code').filter({ hasText: 'story-1' }).waitFor();
      expect(await event.textContent()).not.toMatch(/deliver/i);
      await shot(page, 'call-event');

      // A webhook's run is still a delivery.
      await page.goto(`${con.url}/console#/runs/${hookRun}`);
      await page.locator('article.story').getByText('(the delivery and every run it became)').waitFor();
      expect(errors).toEqual([]);
    });
  });
});
