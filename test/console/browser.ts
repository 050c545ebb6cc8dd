/**
 * What the console's browser tests share: Debian's headless Chromium through
 * playwright-core, a page that records every script error and CSP violation,
 * signing in with a token, the nav's links and full-page screenshots under
 * test/console/screenshots/ (gitignored).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';

export const CHROMIUM = process.env.HOOKYARD_CHROMIUM ?? '/usr/bin/chromium';
export const SHOTS = join(__dirname, 'screenshots');
/** Each wait for something the page should show; generous for a busy 2-core machine. */
export const UI_MS = 20_000;

/** Fails (never skips) when the console is not built or Chromium is missing. */
export function requireConsoleBrowser(): void {
  if (!existsSync(join(__dirname, '..', '..', 'services', 'ingress', 'dist', 'console-assets', 'index.html'))) {
    throw new Error('the console assets are not built: run `pnpm build` first (`pnpm test` does it)');
  }
  if (!existsSync(CHROMIUM)) throw new Error(`no Chromium at ${CHROMIUM}: apt-get install -y chromium (.ci/run does it)`);
  mkdirSync(SHOTS, { recursive: true });
}

/** One headless Chromium for a suite, its pages, and the console's sign-in. */
export class ConsoleBrowser {
  private readonly contexts: BrowserContext[] = [];

  private constructor(
    private readonly browser: Browser,
    readonly url: string,
  ) {}

  static async launch(url: string): Promise<ConsoleBrowser> {
    const browser = await chromium.launch({ executablePath: CHROMIUM, headless: true, args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'] });
    return new ConsoleBrowser(browser, url);
  }

  /** A fresh context and page; `errors` collects every page error and console error (a CSP violation is one). */
  async newPage(): Promise<{ page: Page; errors: string[] }> {
    const context = await this.browser.newContext({ viewport: { width: 1280, height: 860 } });
    this.contexts.push(context);
    const page = await context.newPage();
    page.setDefaultTimeout(UI_MS);
    const errors: string[] = [];
    // A CSP violation or a script error is a failure of the console, whatever the page shows.
    page.on('pageerror', (e) => errors.push(`pageerror: ${e.message}`));
    page.on('console', (m) => {
      if (m.type() === 'error' && !/Failed to load resource/.test(m.text())) errors.push(`console: ${m.text()}`);
    });
    return { page, errors };
  }

  async signIn(page: Page, token: string, role: string): Promise<void> {
    await page.goto(`${this.url}/console`);
    await page.getByLabel('API token').fill(token);
    await page.getByRole('button', { name: 'Sign in' }).click();
    await page.getByTestId('role').filter({ hasText: role }).waitFor();
  }

  /** Screenshots every open page as `failure-<n>.png` (the screen as it was when a step timed out). */
  async shootFailures(): Promise<void> {
    for (const [i, c] of this.contexts.entries()) for (const p of c.pages()) await shot(p, `failure-${i}`).catch(() => undefined);
  }

  async close(): Promise<void> {
    for (const c of this.contexts) await c.close().catch(() => undefined);
    await this.browser.close().catch(() => undefined);
  }
}

/** The link of a console section in the nav. */
export const nav = (page: Page, section: string) =>
  page.getByRole('navigation', { name: 'Console sections' }).getByRole('link', { name: section, exact: true });

/** A full-page screenshot as test/console/screenshots/<name>.png. */
export const shot = (page: Page, name: string) => page.screenshot({ path: join(SHOTS, `${name}.png`), fullPage: true });
