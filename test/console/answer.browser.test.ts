/**
 * Answering approvals and acting on runs in the console, in a real headless
 * Chromium against `hookyard serve --role all`: Deny asks for confirmation and
 * a reason (refused without one), then says the run ends denied; a parked
 * run's story links to its interaction and an operator approves there, then
 * sees the run resume and succeed (a reader sees the link, no buttons); Retry
 * of a run whose tool was called warns it is called again with its
 * idempotency key; Replay of an ended run with an edited payload makes a new
 * run recorded as its replay (a payload that is not JSON is the API's 400,
 * shown in the dialog).
 * Screenshots: approval-deny-confirmed, parked-story-approve, retry-warning,
 * replay-edited-payload.
 */
import type { Page } from 'playwright-core';
import { idempotencyKey, startMockServer, type MockServer } from '../support/http-recorder';
import { eventually } from '../support/processes';
import { LOOPBACK_NETS_ENV } from '../support/services';
import { consoleServer, type ConsoleServer, shot, UI_MS, withPage } from './browser';

const ADMIN = 'answer-admin-token-0123456789abcdef';
const OPERATOR = 'answer-operator-token-0123456789abcd';
const READER = 'answer-reader-token-0123456789abcdef';

jest.setTimeout(150_000);

describe('operator console: confirmed answers, parked stories, retry warning, replay with a payload (Chromium)', () => {
  let con: ConsoleServer;
  let tool: MockServer;
  /** The HTTP tool answers 500 while this is true (the call left: its run is held failed, acted start). */
  let failing = true;

  beforeAll(async () => {
    tool = await startMockServer((req) => {
      if (req.method !== 'POST') return { status: 404 };
      return failing ? { status: 500, body: '{"error":"boom"}' } : { body: '{"ok":true}' };
    });
    con = await consoleServer(
      'console-answer',
      {
        HOOKS_API_TOKENS: `admin:${ADMIN},operator:${OPERATOR},reader:${READER}`,
        HOOKS_DOOR_RATE: '0',
        HOOKS_OUTBOUND_ALLOW_NETS: LOOPBACK_NETS_ENV,
      },
      ADMIN,
    );
  });

  afterAll(async () => {
    await con?.stop();
    await tool?.close();
  });

  const send = async (topic: string, payload: unknown): Promise<string> => (await con.ok('POST', `/universal_webhook/${topic}`, payload)).run_ids[0];
  const reaches = (id: string, status: string) =>
    eventually(
      async () => {
        const run = await con.ok('GET', `/api/hook-runs/${id}`);
        return run.status === status ? run : undefined;
      },
      UI_MS,
      `run ${id} to be ${status}`,
    );

  it('an operator denies with a reason, approves from a parked story, is warned before a retry that calls the tool again, replays with an edited payload', async () => {
    await con.ok('PUT', '/api/approval-policy', { rules: [{ name: 'ask before print', tools: ['print'], action: 'approve' }] });
    await con.ok('POST', '/api/hooks', { name: 'ask', topic: 'asks', tool: 'print', start_expr: { content: '{note: .note}' } });
    await con.ok('POST', '/api/hooks', { name: 'greet', topic: 'greet', tool: 'echo', start_expr: { content: '{who: .who}' } });
    await con.ok('POST', '/api/tools', { name: 'flaky', endpoint: tool.url, protocol: 'langserve-direct' });
    // The tool catalogue takes the new tool in shortly after its registration.
    await eventually(
      () => con.ok('POST', '/api/hooks', { name: 'flaky', topic: 'flaky', tool: 'flaky' }).catch(() => undefined),
      UI_MS,
      'the hook of tool flaky to be registered',
    );
    const denied = await send('asks', { note: 'friday deploy' });
    const approved = await send('asks', { note: 'ship it' });
    await reaches(denied, 'parked');
    await reaches(approved, 'parked');

    await withPage(con.browser, async (page, errors) => {
      await con.browser.signIn(page, OPERATOR, 'operator');
      await denyOnApprovals(page, denied);
      await approveFromStory(page, approved);
      await retryWarning(page);
      await replayEdited(page);
      expect(errors).toEqual([]);
    });

    // A reader sees what a parked run waits on, and no answer buttons.
    const parked = await send('asks', { note: 'for the reader' });
    await reaches(parked, 'parked');
    const { page: r, errors: readerErrors } = await con.browser.newPage();
    await con.browser.signIn(r, READER, 'reader');
    await r.goto(`${con.url}/console#/runs/${parked}`);
    await r.getByTestId('parked-on').filter({ hasText: 'an operator answers it' }).waitFor();
    expect(await r.getByRole('button', { name: /^(Approve|Deny|Retry|Replay…)$/ }).count()).toBe(0);
    expect(readerErrors).toEqual([]);
  });

  async function denyOnApprovals(page: Page, id: string): Promise<void> {
    await page.goto(`${con.url}/console#/approvals`);
    const card = page.locator('li.approval').filter({ hasText: id });
    await card.getByTestId('args-check').filter({ hasText: 'SHA-256 matches' }).waitFor();
    await card.getByRole('button', { name: 'Deny' }).click();
    const dialog = page.getByRole('dialog', { name: `Deny print for run ${id}?` });
    await dialog.getByText('The run ends denied and the tool is not called.').waitFor();
    // A denial needs a reason: refused in the dialog, nothing sent.
    await dialog.getByRole('button', { name: 'Deny' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'A denial needs a reason.' }).waitFor();
    expect(await dialog.getByLabel('Reason (required)').getAttribute('aria-invalid')).toBe('true');
    expect((await con.ok('GET', `/api/hook-runs/${id}`)).status).toBe('parked');
    await dialog.getByLabel('Reason (required)').fill('not in the release window');
    await shot(page, 'approval-deny-dialog');
    await dialog.getByRole('button', { name: 'Deny' }).click();
    const outcome = page.getByTestId('answer-outcome');
    await outcome.filter({ hasText: `Denied: run ${id} ends denied (“not in the release window”); its tool is not called.` }).waitFor();
    expect(await outcome.getByRole('link', { name: id }).getAttribute('href')).toBe(`#/runs/${id}`);
    await card.waitFor({ state: 'detached' });
    const run = await reaches(id, 'denied');
    const interaction = await con.ok('GET', `/api/interactions/${run.interaction}`);
    expect(interaction).toMatchObject({ status: 'denied', resolution: { reason: 'not in the release window', via: 'api' } });
    await shot(page, 'approval-deny-confirmed');
  }

  async function approveFromStory(page: Page, id: string): Promise<void> {
    await page.goto(`${con.url}/console#/runs/${id}`);
    await page.locator('h1').filter({ hasText: id }).locator('.status').filter({ hasText: 'parked' }).waitFor();
    const { interaction } = await con.ok('GET', `/api/hook-runs/${id}`);
    const link = page.getByTestId('interaction-link');
    await link.filter({ hasText: interaction }).waitFor();
    expect(await link.getAttribute('href')).toBe(`#/approvals?interaction=${interaction}`);
    await page.getByTestId('parked-on').filter({ hasText: '(rule ask before print)' }).waitFor();
    await page.getByRole('button', { name: 'Approve' }).click();
    const dialog = page.getByRole('dialog', { name: `Approve print for run ${id}?` });
    await dialog.getByLabel('Reason (optional, kept with the answer)').fill('checked the note');
    await dialog.getByRole('button', { name: 'Approve' }).click();
    await page
      .getByTestId('answer-outcome')
      .filter({ hasText: `Approved: run ${id} resumed and calls its tool now.` })
      .waitFor();
    // The story follows the run live: resumed, then succeeded; the approval reads answered.
    await page.locator('h1 .status').filter({ hasText: 'succeeded' }).waitFor();
    await page.getByTestId('run-approval').filter({ hasText: 'approved by' }).waitFor();
    expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
    await shot(page, 'parked-story-approve');
    // The link opens that one interaction, answered.
    await page.goto(`${con.url}/console#/approvals?interaction=${interaction}`);
    await page.getByRole('heading', { name: `Interaction ${interaction}` }).waitFor();
    await page.getByTestId('interaction-status').filter({ hasText: 'approved' }).waitFor();
  }

  async function retryWarning(page: Page): Promise<void> {
    const id = await send('flaky', { n: 1 });
    const failed = await reaches(id, 'failed');
    expect(failed.acted).toBe('start');
    await page.goto(`${con.url}/console#/runs/${id}`);
    await page.locator('h1').filter({ hasText: id }).locator('.status').filter({ hasText: 'failed' }).waitFor();
    await page.getByRole('button', { name: 'Retry' }).click();
    const dialog = page.getByRole('dialog');
    await dialog.getByText(`Run ${id} again as a fresh run?`).waitFor();
    await dialog
      .getByTestId('retry-warning')
      .filter({
        hasText: `Its tool was already called: the retry calls it again (once the approval policy allows it) with idempotency key ${id} (extra tai42/idempotency_key).`,
      })
      .waitFor();
    await shot(page, 'retry-warning');
    failing = false;
    await dialog.getByRole('button', { name: 'Retry' }).click();
    await page
      .getByRole('status')
      .filter({ hasText: `Retried: its tool is called again with idempotency key ${id}.` })
      .waitFor();
    await page.locator('h1 .status').filter({ hasText: 'succeeded' }).waitFor();
    // The tool saw the same key both times.
    expect(tool.seen.filter((q) => q.method === 'POST').map(idempotencyKey)).toEqual([id, id]);
  }

  async function replayEdited(page: Page): Promise<void> {
    const id = await send('greet', { who: 'ada' });
    await reaches(id, 'succeeded');
    await page.goto(`${con.url}/console#/runs/${id}`);
    await page.locator('h1').filter({ hasText: id }).locator('.status').filter({ hasText: 'succeeded' }).waitFor();
    await page.getByRole('button', { name: 'Replay…' }).click();
    const dialog = page.getByRole('dialog', { name: `Replay run ${id}` });
    const payload = dialog.getByLabel('Payload (JSON)');
    expect(JSON.parse(await payload.inputValue())).toEqual({ who: 'ada' });
    await dialog.getByTestId('replay-edited').filter({ hasText: 'Unchanged' }).waitFor();
    // Text that is not JSON: the API's 400 names the payload, shown in the dialog; nothing is kept.
    await payload.fill('{"who": ');
    await dialog.getByRole('button', { name: 'Replay with this payload' }).click();
    await dialog.getByRole('alert').filter({ hasText: 'payload is not valid JSON' }).waitFor();
    await payload.fill('{\n  "who": "grace"\n}');
    // Editing again clears the refusal.
    await dialog.getByRole('alert').waitFor({ state: 'detached' });
    await dialog.getByTestId('replay-edited').filter({ hasText: 'Edited: the new run gets this payload.' }).waitFor();
    await shot(page, 'replay-edited-payload');
    await dialog.getByRole('button', { name: 'Replay with this payload' }).click();
    const replayed = page.getByTestId('replayed');
    await replayed.filter({ hasText: 'with an edited payload' }).waitFor();
    const newId = (await replayed.getAttribute('data-run'))!;
    const run = await reaches(newId, 'succeeded');
    expect(run).toMatchObject({ replay_of: id, payload: { who: 'grace' }, result: { who: 'grace' } });
    expect((await con.ok('GET', '/api/hook-runs?hook=greet')).runs).toHaveLength(2);
    // The new run's story says what it replays.
    await replayed.getByRole('link', { name: newId }).click();
    await page
      .getByTestId('replay-of')
      .filter({ hasText: `Replay of run ${id}, with an edited payload.` })
      .waitFor();
  }
});
