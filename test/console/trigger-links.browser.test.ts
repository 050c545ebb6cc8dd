/**
 * A hook's trigger links in the console, in a real headless Chromium against
 * the embedded default: an operator makes one with an expiry and a use
 * limit (Create offers both), the list shows them and the link's last use
 * (never, then the time it fired), a use limit below 1 is held by its field;
 * the page's icon is linked and nothing the page asks for is a 404.
 * Screenshot: trigger-links.png.
 */
import { consoleServer, type ConsoleServer, shot, UI_MS, withPage } from './browser';

const OPERATOR = 'console-operator-token-0123456789abcdef';

jest.setTimeout(120_000);

describe('operator console: trigger links (Chromium)', () => {
  let con: ConsoleServer;

  beforeAll(async () => {
    con = await consoleServer('console-links', { HOOKS_API_TOKENS: `operator:${OPERATOR}` }, OPERATOR);
    await con.ok('POST', '/api/hooks', { name: 'form', topic: 'signups', tool: 'echo' });
  });

  afterAll(() => con?.stop());

  it('Create offers an expiry and a use limit; the list shows them and the last use', async () => {
    await withPage(con.browser, async (page, errors) => {
      const missing: string[] = [];
      page.on('response', (r) => {
        if (r.status() === 404) missing.push(r.url());
      });
      await con.browser.signIn(page, OPERATOR, 'operator');
      await page.goto(`${con.url}/console#/hooks/form/links`);
      const form = page.getByRole('form', { name: 'Create a trigger link' });
      await form.getByLabel('Label').fill('signup form');
      await form.getByLabel('Expires').selectOption({ label: 'in 1 day' });
      // A use limit below 1 is held by the field itself (the server would name max_uses); nothing is sent.
      await form.getByLabel('Use limit').fill('0');
      expect(await form.getByLabel('Use limit').evaluate((el) => (el as unknown as { validity: { valid: boolean } }).validity.valid)).toBe(false);
      await form.getByLabel('Use limit').fill('3');
      const before = Date.now();
      await form.getByRole('button', { name: 'Create a link' }).click();
      const made = page.locator('[data-made-link]');
      await made.waitFor();
      const url = (await made.locator('code').textContent())!;
      const [link] = (await con.ok('GET', '/api/hooks/form/links')).links;
      expect(link).toMatchObject({ label: 'signup form', max_uses: 3, uses: 0, last_used_at: null });
      const expires = Date.parse(link.expires_at);
      expect(expires).toBeGreaterThanOrEqual(before + 86_400_000 - 60_000);
      expect(expires).toBeLessThanOrEqual(Date.now() + 86_400_000 + 60_000);
      const row = page.locator(`tr[data-link="${link.id}"]`);
      await row.getByText('0 / 3').waitFor();
      expect(await row.locator('[data-last-used]').textContent()).toBe('never');
      expect(await row.textContent()).toContain('active');

      // The link fires; the list, loaded again, shows its use and when.
      const fired = await fetch(url, { method: 'POST', headers: { 'content-type': 'application/json' }, body: '{"email":"a@example.com"}' });
      expect(fired.status).toBe(200);
      const used = (await con.ok('GET', '/api/hooks/form/links')).links[0];
      expect(used.uses).toBe(1);
      expect(Date.parse(used.last_used_at)).toBeGreaterThanOrEqual(before - 1000);
      await page.reload();
      await row.getByText('1 / 3').waitFor({ timeout: UI_MS });
      expect(await row.locator('[data-last-used]').textContent()).not.toBe('never');
      expect(await row.locator('[data-last-used]').textContent()).toMatch(/\d/);

      // The page names its icon, and nothing it asked for was a 404.
      expect(await page.locator('link[rel="icon"]').getAttribute('href')).toMatch(/^\/console\/assets\/favicon-[\w-]+\.svg$/);
      expect(missing).toEqual([]);
      expect(errors).toEqual([]);
      await shot(page, 'trigger-links');
    });
  });
});
