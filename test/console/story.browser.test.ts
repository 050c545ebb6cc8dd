/**
 * Why a run failed, at a glance, in a real headless Chromium against
 * `hookyard serve --role all`: the runs list shows each error's message (its
 * kind beside it, the whole in the title), who or which rule denied a run
 * (not styled as a failure) and what a parked run awaits; a run's story says
 * why its failure was not retried, groups its history per attempt with
 * durations, folds attempts that failed the same way, reads a call that never
 * left as one line, and shows the HTTP reply the webhook tool got (status,
 * redacted headers, body excerpt). Times carry their zone.
 * Screenshots: runs-list-errors.png, run-story-attempts.png, run-story-http.png.
 */
import { createServer, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import type { Page } from 'playwright-core';
import { eventually } from '../support/processes';
import { freePort } from '../support/servers';
import { consoleServer, type ConsoleServer, shot, UI_MS, withPage } from './browser';

// The callbacks given to evaluate run in the browser; this program is type-checked for node (no DOM lib).
declare function getComputedStyle(el: unknown): { color: string };

const ADMIN = 'console-story-admin-0123456789abcdef';

jest.setTimeout(120_000);

describe('operator console: why a run failed, at a glance (Chromium)', () => {
  let con: ConsoleServer;
  let upstream: Server;
  let upstreamUrl: string;

  beforeAll(async () => {
    // The tool's endpoint: 500 with a body and a session cookie.
    upstream = createServer((req, res) => {
      req.resume();
      req.on('end', () => {
        res.writeHead(500, { 'Content-Type': 'application/json', 'Set-Cookie': 'session=very-secret-cookie; HttpOnly', 'X-Request-Id': 'req-7' });
        res.end(JSON.stringify({ error: 'ledger locked', detail: 'x'.repeat(3000) }));
      });
    });
    await new Promise<void>((r) => upstream.listen(0, '127.0.0.1', () => r()));
    upstreamUrl = `http://127.0.0.1:${(upstream.address() as AddressInfo).port}`;
    con = await consoleServer(
      'console-story',
      {
        HOOKS_API_TOKENS: `admin:${ADMIN}`,
        HOOKS_OUTBOUND_ALLOW_NETS: '127.0.0.0/8',
        // Four quick attempts for a call that never leaves.
        HOOKS_RUN_MAX_ATTEMPTS: '4',
        HOOKS_RUN_RETRY_BASE_SECONDS: '0.05',
        HOOKS_RUN_RETRY_CAP_SECONDS: '0.1',
        HOOKS_RUN_SWEEP_SECONDS: '0.1',
      },
      ADMIN,
    );
  });

  afterAll(async () => {
    await con?.stop();
    await new Promise<void>((r) => (upstream ? upstream.close(() => r()) : r()));
  });

  const send = (topic: string, payload: unknown) => con.send(topic, payload).then((r) => r.json());
  const runOf = (hook: string, status: string) =>
    eventually(async () => (await con.ok('GET', `/api/hook-runs?hook=${hook}&status=${status}`)).runs[0], UI_MS * 2, `a ${status} run of ${hook}`);

  it('the list says why each run stands where it does; the story explains, per attempt, with the HTTP reply', async () => {
    await withPage(con.browser, async (page, errors) => {
      await story(page, errors);
    });
  });

  async function story(page: Page, errors: string[]): Promise<void> {
    const closed = `http://127.0.0.1:${await freePort()}/down`;
    await con.ok('PUT', '/api/approval-policy', {
      rules: [
        { name: 'friday freeze', tools: ['echo'], when: '.topic == "deploy"', action: 'deny', message: 'no deploys on friday' },
        { name: 'prod ships', tools: ['echo'], when: '.topic == "ship"', action: 'approve', message: 'ask first' },
      ],
    });
    await con.ok('POST', '/api/hooks', { name: 'charge', topic: 'pay', tool: 'webhook', start_expr: { content: `{url: "${upstreamUrl}/charge", body: .}` } });
    await con.ok('POST', '/api/hooks', { name: 'notify', topic: 'notify', tool: 'webhook', start_expr: { content: `{url: "${closed}", body: .}` } });
    await con.ok('POST', '/api/hooks', { name: 'deploy', topic: 'deploy', tool: 'echo' });
    await con.ok('POST', '/api/hooks', { name: 'ship', topic: 'ship', tool: 'echo' });
    for (const topic of ['pay', 'notify', 'deploy', 'ship']) await send(topic, { order: 'A-17' });
    const charged = await runOf('charge', 'failed');
    const notified = await runOf('notify', 'failed');
    const denied = await runOf('deploy', 'denied');
    const parked = await runOf('ship', 'parked');

    // The API: the failure's HTTP reply on its outcome line, the cookie redacted, the body bounded; the error's retryability.
    const failedLine = charged.history.find((h: any) => h.event === 'failed');
    expect(failedLine.http).toMatchObject({ status: 500, headers: { 'set-cookie': '[redacted]', 'x-request-id': 'req-7' }, body_truncated: true });
    expect(failedLine.http.body.length).toBeLessThanOrEqual(2048);
    expect(JSON.stringify(charged)).not.toContain('very-secret-cookie');
    expect(charged.error).toMatchObject({ kind: 'unavailable', retryable: true });
    expect(notified.attempts).toBe(4);

    await con.browser.signIn(page, ADMIN, 'admin');
    await page.goto(`${con.url}/console#/runs`);
    const reason = (id: string) => page.locator(`tr[data-run="${id}"]`).getByTestId('run-reason');
    // The message, not only the kind; the whole in the title.
    await reason(charged.id)
      .filter({ hasText: /^unavailable: webhook POST .* answered HTTP 500/ })
      .waitFor();
    expect(await reason(charged.id).getAttribute('title')).toContain('ledger locked');
    await reason(notified.id)
      .filter({ hasText: /ECONNREFUSED/ })
      .waitFor();
    await reason(denied.id).filter({ hasText: 'denied by rule friday freeze' }).waitFor();
    await reason(parked.id).filter({ hasText: 'awaiting approval (rule prod ships)' }).waitFor();
    // Denied is not a failure: its badge is not the failure's colour.
    const colour = (id: string) => page.locator(`tr[data-run="${id}"] .status`).evaluate((el) => getComputedStyle(el).color);
    expect(await colour(denied.id)).not.toBe(await colour(charged.id));
    // Times say how long ago, with the absolute time and its zone in the title.
    const kept = page.locator(`tr[data-run="${charged.id}"] time.when`);
    await kept.filter({ hasText: /ago|just now/ }).waitFor();
    expect(await kept.getAttribute('title')).toMatch(/UTC|GMT/);
    await shot(page, 'runs-list-errors');

    // Live, without a reload: a run denied and one parked while the list is open say why, like the loaded rows.
    const liveRows = page.locator('tr[data-run]');
    const before = await liveRows.count();
    await send('deploy', { order: 'A-18' });
    await send('ship', { order: 'A-18' });
    await eventually(async () => ((await liveRows.count()) >= before + 2 ? true : undefined), UI_MS, 'the two live rows');
    const newest = await liveRows.evaluateAll((rows) => rows.slice(0, 2).map((r) => r.getAttribute('data-run') ?? ''));
    const second = (hook: string, status: string) =>
      eventually(
        async () => {
          const runs = (await con.ok('GET', `/api/hook-runs?hook=${hook}&status=${status}`)).runs as { id: string }[];
          return runs.length === 2 ? runs[0] : undefined;
        },
        UI_MS * 2,
        `the second ${status} run of ${hook}`,
      );
    const deniedLive = await second('deploy', 'denied');
    const parkedLive = await second('ship', 'parked');
    expect(newest.sort()).toEqual([deniedLive.id, parkedLive.id].sort());
    await reason(deniedLive.id).filter({ hasText: 'denied by rule friday freeze' }).waitFor();
    await reason(parkedLive.id).filter({ hasText: 'awaiting approval (rule prod ships)' }).waitFor();

    // A call that never left, four times: one line per attempt, attempts 1–3 folded, why it was not retried.
    await page.goto(`${con.url}/console#/runs/${notified.id}`);
    await page.getByTestId('why-not-retried').filter({ hasText: 'failed 4 times' }).waitFor();
    const timeline = page.locator('section[aria-labelledby="timeline-title"] > ol.timeline');
    await timeline.locator('li.same summary').filter({ hasText: 'Attempts 1–3 failed and waited to be retried the same way' }).waitFor();
    const last = timeline.locator('li.attempt-group[data-attempt="4"]');
    await last.getByText('Tool call never left (start withdrawn: not a call)').waitFor();
    expect(await last.locator('li.event-acted').count()).toBe(0);
    await last
      .locator('.timing')
      .filter({ hasText: /claimed → tool start|attempt \d/ })
      .waitFor();
    await timeline.locator('li.same summary').click();
    await timeline.locator('li.attempt-group[data-attempt="2"]').getByText('Retry scheduled', { exact: true }).waitFor();
    await shot(page, 'run-story-attempts');

    // The tool was called and answered 500: held, said so; its reply is shown with the cookie redacted.
    await page.goto(`${con.url}/console#/runs/${charged.id}`);
    await page.getByTestId('why-not-retried').filter({ hasText: 'the tool had been called' }).waitFor();
    const reply = page.getByTestId('http-reply');
    await reply
      .locator('summary')
      .filter({ hasText: /HTTP 500 .* body 30\d\d bytes \(first 2048 shown\)/ })
      .waitFor();
    await reply.locator('dd').filter({ hasText: '[redacted]' }).waitFor();
    await reply.locator('pre').filter({ hasText: 'ledger locked' }).waitFor();
    await page
      .locator('li.attempt-group[data-attempt="1"] .timing')
      .filter({ hasText: /tool \d/ })
      .waitFor();
    await shot(page, 'run-story-http');
    expect(errors).toEqual([]);
  }
});
