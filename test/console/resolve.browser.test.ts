/**
 * Resolve, in a real headless Chromium against `hookyard serve --role all` on
 * the shared Redis and NATS: a run held with an unknown outcome (claimed, its
 * non-resumable tool started, its lease lapsed, as a crashed executor leaves
 * it; prepared behind the server's back) shows why it is held and a Resolve…
 * button; the form records the operator's verdict (a result that is not JSON
 * is said in the form and nothing is sent); the run page follows: succeeded,
 * with the resolved line in its timeline. A reader sees no Resolve button.
 * Screenshot: run-resolve.png.
 */
import { createRedisStores, type Stores } from '@hookyard/store';
import { roleEnv } from '../support/processes';
import { cleanupPrefix, requireNats, requireRedis, uniquePrefix } from '../support/services';
import { consoleServer, type ConsoleServer, shot, withPage } from './browser';

const ADMIN = 'console-resolve-admin-0123456789abcdef';
const READER = 'console-resolve-reader-0123456789abcde';
const PARTITIONS = 4;

jest.setTimeout(120_000);

describe('operator console: Resolve a run whose outcome is unknown (Chromium)', () => {
  const prefix = uniquePrefix('conresolve');
  let con: ConsoleServer;
  let direct: Stores;

  beforeAll(async () => {
    const url = await requireRedis();
    await requireNats();
    direct = await createRedisStores({ url, prefix, partitions: PARTITIONS });
    con = await consoleServer(
      'console-resolve',
      { ...roleEnv(prefix, ADMIN, { HOOKS_RUN_PARTITIONS: String(PARTITIONS) }), HOOKS_API_TOKENS: `admin:${ADMIN},reader:${READER}` },
      ADMIN,
    );
    await con.ok('POST', '/api/hooks', { name: 'deployer', topic: 'deploys', tool: 'echo' });
  });

  afterAll(async () => {
    await con?.stop();
    await direct?.close();
    await cleanupPrefix(prefix);
  });

  /** A run of hook deployer held failed with an unknown outcome. */
  async function held(): Promise<string> {
    const now = Date.now();
    const [kept] = await direct.runs.keepEvent({ topic: 'deploys', payload: { service: 'billing' }, now, dispatchGraceMs: 60_000 });
    const c = await direct.runs.claim(kept!.id, 'dead-executor', 1_000, now);
    await direct.runs.act(kept!.id, c!.token, { acted: 'start', actedIds: [], input: { service: 'billing' }, resumable: false }, now);
    await direct.runs.sweepLapsed(now + 1_001, 100, { maxAttempts: 5, retryDelayMs: 1_000 });
    expect((await direct.runs.get(kept!.id))?.error?.kind).toBe('outcome_unknown');
    return kept!.id;
  }

  it('the run page says why it is held; Resolve… records the verdict and the page follows; a reader has no button', async () => {
    const id = await held();
    await withPage(con.browser, async (page) => {
      await con.browser.signIn(page, ADMIN, 'admin');
      await page.goto(`${con.url}/console#/runs/${id}`);
      await page.getByTestId('why-not-retried').filter({ hasText: 'the outcome is unknown and the tool may have acted' }).waitFor();
      await page.getByRole('button', { name: 'Resolve…' }).click();
      const dialog = page.getByRole('dialog');
      await dialog.getByText(`Resolve run ${id}`).waitFor();
      // Not JSON: said in the form, nothing sent.
      await dialog.getByLabel('Result (JSON; empty for null)').fill('{deployed: v2');
      await dialog.getByRole('button', { name: 'Resolve', exact: true }).click();
      await dialog.getByRole('alert').filter({ hasText: 'The result is not JSON' }).waitFor();
      expect((await direct.runs.get(id))?.status).toBe('failed');
      await dialog.getByLabel('Result (JSON; empty for null)').fill('{"deployed": "v2"}');
      // Editing the result clears what was said of the old text.
      expect(await dialog.getByRole('alert').count()).toBe(0);
      await dialog.getByLabel('Note (what you checked)').fill('billing v2 is live');
      await shot(page, 'run-resolve');
      await dialog.getByRole('button', { name: 'Resolve', exact: true }).click();
      await page.getByTestId('resolved').filter({ hasText: 'Resolved: the run is succeeded.' }).waitFor();
      await page.locator('h1 .status').filter({ hasText: 'succeeded' }).waitFor();
      await page.getByText('Resolved by an operator (the outcome was unknown)', { exact: true }).waitFor();
      await page.getByText('resolved by admin as succeeded (the outcome was unknown); note: billing v2 is live').waitFor();
      expect(await page.getByRole('button', { name: 'Resolve…' }).count()).toBe(0);
      expect(await direct.runs.get(id)).toMatchObject({ status: 'succeeded', result: { deployed: 'v2' } });
    });

    const other = await held();
    await withPage(con.browser, async (page) => {
      await con.browser.signIn(page, READER, 'reader');
      await page.goto(`${con.url}/console#/runs/${other}`);
      await page.getByTestId('why-not-retried').filter({ hasText: 'the outcome is unknown' }).waitFor();
      expect(await page.getByRole('button', { name: /Resolve|Retry|Discard/ }).count()).toBe(0);
    });
  });
});
