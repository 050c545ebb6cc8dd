/**
 * The Audit page in a real headless Chromium against `hookyard serve --role
 * all`: an operator's changes (a hook registered, then moved to another
 * topic, a refused policy change) and an admin's policy change are listed
 * newest first with who, what, target, status and address; the filters (in
 * the hash) narrow the list; a change opens to a diff of the record before
 * and after; more than a page of changes pages with Older / Newer; an operator
 * has no Audit page. Screenshot: audit-trail.png.
 */
import type { Page } from 'playwright-core';
import { eventually } from '../support/processes';
import { consoleServer, type ConsoleServer, nav, shot, UI_MS, withPage } from './browser';

const ADMIN = 'console-audit-admin-token-0123456789';
const OPERATOR = 'console-audit-operator-token-0123456789';

jest.setTimeout(120_000);

describe('operator console: the audit trail (Chromium)', () => {
  let con: ConsoleServer;

  beforeAll(async () => {
    con = await consoleServer('console-audit', { HOOKS_API_TOKENS: `admin:${ADMIN},operator:${OPERATOR}` }, ADMIN);
  });

  afterAll(() => con?.stop());

  it('an admin reads who changed what, filters, opens a diff of before and after, and pages; an operator has no Audit page', async () => {
    await withPage(con.browser, async (page, errors) => {
      await story(page);
      expect(errors).toEqual([]);
    });
  });

  async function story(page: Page): Promise<void> {
    // More than a page (50) of changes: 50 hooks registered, then one moved to another topic, a refused and an applied policy change.
    for (let i = 0; i < 50; i += 1)
      expect((await con.api('POST', '/api/hooks', { name: `bulk-${i}`, topic: 'orders', tool: 'echo' }, OPERATOR)).status).toBe(201);
    expect((await con.api('POST', '/api/hooks', { name: 'bulk-7', topic: 'payments', tool: 'echo', tool_kwargs: { note: 'moved' } }, OPERATOR)).status).toBe(
      200,
    );
    expect((await con.api('PUT', '/api/approval-policy', { rules: [] }, OPERATOR)).status).toBe(403);
    expect((await con.api('PUT', '/api/approval-policy', { rules: [{ name: 'ask', tools: ['print'], action: 'approve' }] })).status).toBe(200);
    await eventually(async () => ((await con.api('GET', '/api/audit?limit=500')).json.entries.length === 53 ? true : undefined), UI_MS, 'the 53 audit entries');

    await con.browser.signIn(page, ADMIN, 'admin');
    await nav(page, 'Audit').click();
    const rows = page.locator('table.audit tbody tr');
    await page.locator('tr[data-action="policy.update"]').first().waitFor();
    expect(await rows.count()).toBe(50);
    // Newest first: the admin's policy change, the operator's refused one (403, no diff), the move.
    const first = rows.nth(0);
    expect(await first.getAttribute('data-action')).toBe('policy.update');
    await first.getByText(/^admin:[0-9a-f]{8}$/).waitFor();
    const refused = rows.nth(1);
    await refused.getByText(/^operator:[0-9a-f]{8}$/).waitFor();
    await refused.getByText('403', { exact: true }).waitFor();

    // Filter: the hook's changes only; its replacement opens to a diff (topic and kwargs changed).
    const filters = page.getByRole('form', { name: 'Filter the audit trail' });
    await filters.getByLabel('Action').fill('hook.*');
    await filters.getByLabel('Target').fill('bulk-7');
    await filters.getByRole('button', { name: 'Apply' }).click();
    await page.waitForURL(/action=hook\.\*.*target=bulk-7|target=bulk-7.*action=hook\.\*/);
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('table.audit tbody tr').length === 2);
    const moved = rows.nth(0);
    await moved.getByText('changed: +', { exact: false }).click();
    const diff = moved.getByLabel('Changes of hook.register bulk-7');
    await diff.locator('.del', { hasText: '"topic": "orders"' }).waitFor();
    await diff.locator('.add', { hasText: '"topic": "payments"' }).waitFor();
    await diff.locator('.add', { hasText: '"note": "moved"' }).waitFor();
    await rows.nth(1).getByText('new: +', { exact: false }).waitFor();
    await shot(page, 'audit-trail');

    // Paging: cleared filters, 53 entries: a page of 50, then Older shows the 3 oldest, Newer goes back.
    await page.getByRole('link', { name: 'Clear' }).click();
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('table.audit tbody tr').length === 50);
    await page.getByRole('link', { name: 'Older' }).click();
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('table.audit tbody tr').length === 3);
    await page.locator('table.audit tbody tr').last().getByText('bulk-0', { exact: true }).waitFor();
    await page.getByRole('button', { name: 'Newer' }).click();
    await page.waitForFunction(() => (globalThis as any).document.querySelectorAll('table.audit tbody tr').length === 50);

    // An operator has no Audit page in the nav (and the API refuses it).
    const { page: op } = await con.browser.newPage();
    await con.browser.signIn(op, OPERATOR, 'operator');
    await nav(op, 'Runs').waitFor();
    expect(await nav(op, 'Audit').count()).toBe(0);
  }
});
