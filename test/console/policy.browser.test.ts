/**
 * The console's jq fields under fast typing, in a real headless Chromium
 * against `hookyard serve --role all`: keystrokes delivered back to back
 * (Playwright's keyboard.type with no delay, as a busy browser delivers them)
 * into every jq field of the Register and Edit forms leave the tab answering,
 * each field holding what was typed, and the saved hook holding it too.
 * The approval policy page: a reader sees the rules in order; an admin edits
 * them with the rules editor (jq editor for `when`, typed into fast too),
 * dry-runs a call against the edited rules before saving (nothing is kept),
 * meets a conflict when someone else saved meanwhile, reloads and saves.
 * Screenshots: jq-fast-typing-register.png, jq-fast-typing-edit.png,
 * policy-reader-view.png, policy-editor-dry-run.png.
 */
import type { Page } from 'playwright-core';
import { consoleServer, type ConsoleServer, nav, shot } from './browser';

// The callbacks given to page.evaluate run in the browser; this program is type-checked for node (no DOM lib).
interface PageElement {
  getAttribute(name: string): string | null;
}

const ADMIN = 'console-admin-token-0123456789abcdef';
const READER = 'console-reader-token-0123456789abcdef';

jest.setTimeout(150_000);

/** `what` settled within `ms`, or a failure naming it (a tab spinning in a render loop answers nothing). */
function bounded<T>(what: string, ms: number, p: Promise<T>): Promise<T> {
  let timer: ReturnType<typeof setTimeout> | undefined;
  const late = new Promise<never>((_, reject) => {
    timer = setTimeout(() => reject(new Error(`${what}: no answer within ${ms} ms (the tab is stuck)`)), ms);
  });
  return Promise.race([p, late]).finally(() => clearTimeout(timer));
}

/** The text typed into the i-th jq field: a jq program that compiles in every jq field (no top-level assignment). */
const typed = (i: number, label: string) => `.f${i} == "typed in ${label}"`;

/**
 * Types into every jq editor on the page with keyboard.type and no delay, replacing what the field held (and
 * deleting two extra characters with back-to-back Backspaces, so a text repeats in the editor's reports); after
 * each field the tab still answers within a bound and the field holds exactly what was typed. Answers the labels.
 */
export async function typeIntoEveryJqField(page: Page, form: string): Promise<string[]> {
  const labels = await page.locator('.cm-editor [data-field]').evaluateAll((els) => els.map((e) => (e as unknown as PageElement).getAttribute('data-field')!));
  for (const [i, label] of labels.entries()) {
    const text = typed(i, label);
    const field = page.getByRole('textbox', { name: label, exact: true });
    await bounded(
      `${form}: typing into ${label}`,
      15_000,
      (async () => {
        await field.click();
        await page.keyboard.press('ControlOrMeta+a');
        await page.keyboard.type(`${text}xx`);
        await page.keyboard.press('Backspace');
        await page.keyboard.press('Backspace');
      })(),
    );
    expect(
      await bounded(
        `${form}: the page after typing into ${label}`,
        5_000,
        page.evaluate(() => 1),
      ),
    ).toBe(1);
    await bounded(`${form}: ${label} holding the typed text`, 10_000, field.filter({ hasText: text }).waitFor());
    expect(await field.textContent()).toBe(text);
  }
  // Every field still holds its own text once they have all been typed into.
  for (const [i, label] of labels.entries()) {
    expect(await bounded(`${form}: reading ${label}`, 5_000, page.getByRole('textbox', { name: label, exact: true }).textContent())).toBe(typed(i, label));
  }
  return labels;
}

describe('operator console: fast typing in jq fields, the approval policy page (Chromium)', () => {
  let con: ConsoleServer;

  beforeAll(async () => {
    con = await consoleServer('console-policy', { HOOKS_API_TOKENS: `admin:${ADMIN},reader:${READER}` }, ADMIN);
    // The subject the forms below bind is a declared state (an undeclared one is 404 at registration).
    await con.ok('PUT', '/api/states/declarations/s/k', { schema: {}, description: 'any document' });
  });

  afterAll(() => con?.stop());

  /** The jq text a saved hook keeps for a form field (`subject.key_expr`, `approval[0].when`, `condition`). */
  function savedText(hook: any, label: string): unknown {
    const rule = /^approval\[(\d+)\]\.when$/.exec(label);
    if (rule) return hook.approval?.[Number(rule[1])]?.when;
    const [parent, key] = label.split('.');
    const v = key ? hook[parent!]?.[key] : hook[parent!];
    return v?.content;
  }

  /** Fails with the page's errors and a screenshot of the moment. */
  async function withPage(name: string, token: string, role: string, body: (page: Page) => Promise<void>): Promise<void> {
    const { page, errors } = await con.browser.newPage();
    try {
      await con.browser.signIn(page, token, role);
      await body(page);
      expect(errors).toEqual([]);
    } catch (err) {
      await bounded('failure screenshot', 5_000, shot(page, `failure-${name}`)).catch(() => undefined);
      throw new Error(`${(err as Error).message}\npage errors: ${JSON.stringify(errors)}`, { cause: err });
    }
  }

  it('typing with no delay into every jq field of the Register and Edit forms leaves the tab answering, each field and the saved hook holding what was typed', async () => {
    await withPage('jq-fast-typing', ADMIN, 'admin', async (page) => {
      // Register, with the topic (and the rest of what a live dry run needs) filled first.
      await page.goto(`${con.url}/console#/hooks/new`);
      await page.getByRole('textbox', { name: 'name', exact: true }).fill('typed');
      await page.getByRole('textbox', { name: 'topic', exact: true }).fill('typed');
      await page.getByRole('combobox', { name: 'tool', exact: true }).selectOption('echo');
      await page.getByRole('textbox', { name: 'subject.scope', exact: true }).fill('s');
      await page.getByRole('textbox', { name: 'subject.kind', exact: true }).fill('k');
      await page.getByRole('button', { name: 'Add a rule to approval' }).click();
      const rule = page.getByRole('group', { name: 'approval[0]' });
      await rule.getByRole('textbox', { name: 'tools', exact: true }).fill('echo');
      await rule.getByRole('combobox', { name: 'action', exact: true }).selectOption('deny');
      const labels = await typeIntoEveryJqField(page, 'Register');
      expect(labels).toEqual(
        expect.arrayContaining(['condition', 'start_expr', 'cancel_expr', 'resume_expr', 'extras_expr', 'subject.key_expr', 'approval[0].when']),
      );
      await shot(page, 'jq-fast-typing-register');
      // What reached the form (not only the editors) is what is registered.
      await page.getByRole('button', { name: 'Register' }).click();
      await page.locator('tr[data-hook="typed"]').waitFor();
      const registered = await con.ok('GET', '/api/hooks/typed');
      for (const [i, label] of labels.entries()) expect({ label, text: savedText(registered, label) }).toEqual({ label, text: typed(i, label) });

      // Edit: a hook with every jq field set, each replaced by typing, then saved.
      await con.ok('POST', '/api/hooks', {
        name: 'typed-edit',
        topic: 'typed-edit',
        tool: 'echo',
        condition: { content: '.a' },
        start_expr: { content: '{}' },
        subject: { scope: 's', kind: 'k', key_expr: { content: '.k' } },
        approval: [{ tools: ['echo'], action: 'deny', when: '.w' }],
      });
      await page.goto(`${con.url}/console#/hooks/typed-edit/edit`);
      await page.getByRole('textbox', { name: 'condition', exact: true }).filter({ hasText: '.a' }).waitFor();
      const editLabels = await typeIntoEveryJqField(page, 'Edit');
      expect(editLabels).toEqual(labels);
      await shot(page, 'jq-fast-typing-edit');
      await page.getByRole('button', { name: 'Save' }).click();
      await page.locator('tr[data-hook="typed-edit"]').waitFor();
      const edited = await con.ok('GET', '/api/hooks/typed-edit');
      for (const [i, label] of editLabels.entries()) expect({ label, text: savedText(edited, label) }).toEqual({ label, text: typed(i, label) });
    });
  });

  it('a reader sees the policy; an admin edits it, dry-runs a call against the edit, meets a conflict, reloads and saves', async () => {
    await con.ok('POST', '/api/hooks', { name: 'deploys', topic: 'ci', tool: 'echo' });
    const first = await con.ok('PUT', '/api/approval-policy', {
      rules: [{ name: 'prod needs a person', tools: ['echo'], when: '.args.env == "prod"', action: 'approve', timeout_seconds: 600 }],
    });

    await withPage('policy-reader', READER, 'reader', async (page) => {
      await nav(page, 'Policy').click();
      await page.getByRole('heading', { name: 'Approval policy' }).waitFor();
      const row = page.getByRole('table', { name: 'Approval rules' }).locator('tr[data-rule="0"]');
      await row.filter({ hasText: 'prod needs a person' }).filter({ hasText: '.args.env == "prod"' }).filter({ hasText: 'open 600 s, then deny' }).waitFor();
      await page
        .getByTestId('policy-version')
        .filter({ hasText: `Version ${first.version}` })
        .waitFor();
      // A reader has neither the editor nor the dry run (an operator's).
      expect(await page.getByRole('form', { name: 'Edit the approval policy' }).count()).toBe(0);
      expect(await page.getByRole('form', { name: 'Dry run a call' }).count()).toBe(0);
      await shot(page, 'policy-reader-view');
    });

    await withPage('policy-admin', ADMIN, 'admin', async (page) => {
      await nav(page, 'Policy').click();
      const editor = page.getByRole('form', { name: 'Edit the approval policy' });
      await editor.getByRole('textbox', { name: 'rules[0].when', exact: true }).filter({ hasText: '.args.env == "prod"' }).waitFor();
      // A second rule, its `when` typed with no delay.
      await editor.getByRole('button', { name: 'Add a rule to rules' }).click();
      const rule = editor.getByRole('group', { name: 'rules[1]' });
      await rule.getByRole('textbox', { name: 'name', exact: true }).fill('no staging');
      await rule.getByRole('textbox', { name: 'tools', exact: true }).fill('echo');
      await rule.getByRole('combobox', { name: 'action', exact: true }).selectOption('deny');
      const when = page.getByRole('textbox', { name: 'rules[1].when', exact: true });
      await bounded(
        'typing into rules[1].when',
        15_000,
        (async () => {
          await when.click();
          await page.keyboard.type('.args.env == "staging"');
        })(),
      );
      await bounded('rules[1].when holding the typed text', 10_000, when.filter({ hasText: '.args.env == "staging"' }).waitFor());
      // The dry run tries the edited rules, unsaved.
      const dry = page.getByRole('form', { name: 'Dry run a call' });
      await page.getByText('Against the edited rules (not saved).').waitFor();
      await dry.getByRole('textbox', { name: 'Hook (registered)' }).fill('deploys');
      await dry.getByRole('textbox', { name: 'Arguments (JSON)' }).fill('{"env": "staging"}');
      await dry.getByRole('button', { name: 'Dry run' }).click();
      await page.getByTestId('policy-dry-run-outcome').filter({ hasText: 'deny' }).waitFor();
      await page.getByTestId('policy-dry-run-summary').filter({ hasText: 'denied by no staging (deployment rules): the tool would not be called' }).waitFor();
      await shot(page, 'policy-editor-dry-run');
      // The same call under the first rule asks for a person.
      await dry.getByRole('textbox', { name: 'Arguments (JSON)' }).fill('{"env": "prod"}');
      await dry.getByRole('button', { name: 'Dry run' }).click();
      await page.getByTestId('policy-dry-run-summary').filter({ hasText: 'approval needed by prod needs a person' }).waitFor();
      expect(await page.getByTestId('policy-dry-run-outcome').textContent()).toBe('approval');
      // Nothing was kept by the dry run.
      expect((await con.ok('GET', '/api/approval-policy')).version).toBe(first.version);

      // Someone else saves meanwhile: Save is a conflict that offers a reload, and nothing is overwritten.
      const other = await con.ok('PUT', '/api/approval-policy', { rules: [{ name: 'theirs', tools: ['*'], action: 'deny' }], version: first.version });
      await editor.getByRole('button', { name: 'Save policy' }).click();
      const conflict = page.getByTestId('policy-conflict');
      await conflict.filter({ hasText: `Someone else changed the policy since you loaded version ${first.version}` }).waitFor();
      expect((await con.ok('GET', '/api/approval-policy')).rules).toEqual(other.rules);
      await conflict.getByRole('button', { name: /Reload the kept policy/ }).click();
      await page
        .getByTestId('policy-version')
        .filter({ hasText: `Version ${other.version}` })
        .waitFor();
      await page.getByRole('table', { name: 'Approval rules' }).getByText('theirs').waitFor();
      await editor.getByRole('group', { name: 'rules[0]' }).getByRole('textbox', { name: 'name', exact: true }).fill('theirs narrowed');
      await editor.getByRole('group', { name: 'rules[0]' }).getByRole('textbox', { name: 'tools', exact: true }).fill('print');
      await editor.getByRole('button', { name: 'Save policy' }).click();
      await page
        .getByRole('status')
        .filter({ hasText: `Saved: the policy is now version ${other.version + 1} with 1 rule(s).` })
        .waitFor();
      expect((await con.ok('GET', '/api/approval-policy')).rules).toEqual([{ name: 'theirs narrowed', tools: ['print'], action: 'deny' }]);
    });
  });
});
