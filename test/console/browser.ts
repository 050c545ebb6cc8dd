/**
 * What the console's browser tests share: `hookyard serve --role all` with
 * its tokens and a JSON API client, Debian's headless Chromium through
 * playwright-core, a page that records every script error and CSP violation,
 * signing in with a token, the nav's links and full-page screenshots under
 * test/console/screenshots/ (gitignored).
 */
import { existsSync, mkdirSync } from 'node:fs';
import { join } from 'node:path';
import { chromium, type Browser, type BrowserContext, type Page } from 'playwright-core';
import { requireBuiltCli, startRole } from '../support/processes';

export const CHROMIUM = process.env.HOOKYARD_CHROMIUM ?? '/usr/bin/chromium';
export const SHOTS = join(__dirname, 'screenshots');
/** Each wait for something the page should show; generous for a busy 2-core machine. */
export const UI_MS = 20_000;

/** Fails (never skips) when the console is not built or Chromium is missing. */
export function requireConsoleBrowser(): void {
  if (!existsSync(join(__dirname, '..', '..', 'packages', 'console', 'dist', 'index.html'))) {
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

/** A served console (`hookyard serve --role all`), its browser and a JSON client of its API. */
export interface ConsoleServer {
  readonly url: string;
  readonly browser: ConsoleBrowser;
  /** The answer's status and parsed body (null when empty), with `token` (the server's default token unless given). */
  api(method: string, path: string, body?: unknown, token?: string): Promise<{ status: number; json: any }>;
  /** The parsed body of a 2xx answer; any other status is a failure naming the request and the answer. */
  ok(method: string, path: string, body?: unknown, token?: string): Promise<any>;
  /** A JSON payload posted to the universal webhook door on `topic`. */
  send(topic: string, payload: unknown): Promise<Response>;
  /** Closes the browser, then stops the server. */
  stop(): Promise<void>;
}

/** Starts `hookyard serve --role all` as `name` with `env` (its tokens) and one Chromium on it; `token` signs API calls. */
export async function consoleServer(name: string, env: Record<string, string>, token: string): Promise<ConsoleServer> {
  requireBuiltCli();
  requireConsoleBrowser();
  const server = startRole(name, 'all', env);
  let url: string;
  let browser: ConsoleBrowser;
  try {
    url = await server.waitListening();
    browser = await ConsoleBrowser.launch(url);
  } catch (err) {
    await server.stop();
    throw err;
  }
  const api = async (method: string, path: string, body?: unknown, as = token): Promise<{ status: number; json: any }> => {
    const res = await fetch(url + path, {
      method,
      headers: { authorization: `Bearer ${as}`, 'content-type': 'application/json' },
      body: body === undefined ? undefined : JSON.stringify(body),
    });
    const text = await res.text();
    return { status: res.status, json: text ? JSON.parse(text) : null };
  };
  return {
    url,
    browser,
    api,
    async ok(method, path, body, as) {
      const { status, json } = await api(method, path, body, as);
      if (status < 200 || status >= 300) throw new Error(`${method} ${path}: ${status} ${JSON.stringify(json)}`);
      return json;
    },
    send: (topic, payload) =>
      fetch(`${url}/universal_webhook/${topic}`, { method: 'POST', headers: { 'content-type': 'application/json' }, body: JSON.stringify(payload) }),
    async stop() {
      await browser.close();
      await server.stop();
    },
  };
}

/**
 * Runs `fn` on a fresh page of `browser`; when it fails, every open page is shot
 * (`failure-<n>.png`) and the failure carries the page's errors.
 */
export async function withPage(browser: ConsoleBrowser, fn: (page: Page, errors: string[]) => Promise<void>): Promise<void> {
  const { page, errors } = await browser.newPage();
  try {
    await fn(page, errors);
  } catch (err) {
    await browser.shootFailures();
    throw new Error(`${(err as Error).message}\npage errors: ${JSON.stringify(errors)}`, { cause: err });
  }
}
