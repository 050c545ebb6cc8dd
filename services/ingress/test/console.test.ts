/**
 * The operator console as the ingress serves it: the page and its hashed
 * assets under a strict Content-Security-Policy, a clear 503 when the assets
 * were not built, and GET /api/whoami (the role the console shows).
 */
import { existsSync, mkdtempSync, realpathSync, rmSync, writeFileSync, mkdirSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { consoleCsp, DEFAULT_CONSOLE_ASSETS, NONCE_PLACEHOLDER } from '../src/console';
import { startHarness, type Harness } from './support/harness';

describe('operator console', () => {
  let h: Harness;
  let built: Harness;
  let dir: string;
  beforeAll(async () => {
    dir = mkdtempSync(join(tmpdir(), 'hookyard-console-'));
    mkdirSync(join(dir, 'assets'));
    writeFileSync(
      join(dir, 'index.html'),
      `<!doctype html><meta name="csp-nonce" content="${NONCE_PLACEHOLDER}"><script type="module" src="/console/assets/app-abc123.js"></script>`,
    );
    writeFileSync(join(dir, 'assets', 'app-abc123.js'), 'console.log("hi")');
    built = await startHarness({ deps: { consoleAssets: dir } });
    h = await startHarness({ deps: { consoleAssets: join(dir, 'missing') } });
  });
  afterAll(async () => {
    await built.close();
    await h.close();
    rmSync(dir, { recursive: true, force: true });
  });

  it('serves the page at /console and /console/ without a token, under a strict CSP with a fresh style nonce', async () => {
    const nonces = new Set<string>();
    for (const path of ['/console', '/console/']) {
      const r = await built.call(path);
      expect(r.status).toBe(200);
      expect(r.headers.get('content-type')).toMatch(/^text\/html/);
      expect(r.text).toContain('/console/assets/app-abc123.js');
      const csp = r.headers.get('content-security-policy')!;
      const nonce = /style-src 'self' 'nonce-([A-Za-z0-9+/]{24})'/.exec(csp)?.[1];
      expect(nonce).toBeDefined();
      expect(r.text).toContain(`<meta name="csp-nonce" content="${nonce}">`);
      expect(r.text).not.toContain(NONCE_PLACEHOLDER);
      nonces.add(nonce!);
      expect(csp).toBe(consoleCsp(nonce));
      expect(csp).toContain("script-src 'self';");
      expect(csp).not.toMatch(/unsafe-inline|unsafe-eval|\*/);
      expect(r.headers.get('x-frame-options')).toBe('DENY');
      expect(r.headers.get('cache-control')).toBe('no-store');
      expect(r.headers.get('x-content-type-options')).toBe('nosniff');
    }
    expect(nonces.size).toBe(2);
  });

  it('serves hashed assets cached for a year, and an unknown one is the JSON 404', async () => {
    const r = await built.call('/console/assets/app-abc123.js');
    expect(r.status).toBe(200);
    expect(r.headers.get('content-type')).toMatch(/javascript/);
    expect(r.headers.get('cache-control')).toBe('public, max-age=31536000, immutable');
    expect(r.headers.get('content-security-policy')).toBe(consoleCsp());
    const missing = await built.call('/console/assets/nope.js');
    expect(missing.status).toBe(404);
    expect(missing.body.error.kind).toBe('not_found');
    expect((await built.call('/console/assets/..%2Findex.html')).status).not.toBe(200);
  });

  it("serves by default the console package's build, found through the package (not a path into the ingress)", async () => {
    const pkg = dirname(require.resolve('@hookyard/console/package.json'));
    expect(realpathSync(pkg)).toBe(realpathSync(join(__dirname, '..', '..', '..', 'packages', 'console')));
    expect(DEFAULT_CONSOLE_ASSETS).toBe(join(pkg, 'dist'));
    expect(existsSync(join(DEFAULT_CONSOLE_ASSETS, 'index.html'))).toBe(true);
    const served = await startHarness();
    try {
      const r = await served.call('/console');
      expect(r.status).toBe(200);
      expect(r.text).toContain('<title>Hookyard console</title>');
    } finally {
      await served.close();
    }
  });

  it('the page links its icon, served from its assets and at /favicon.ico too (no 404 where browsers look)', async () => {
    const served = await startHarness();
    try {
      const page = (await served.call('/console')).text;
      const href = /<link rel="icon" type="image\/svg\+xml" href="(\/console\/assets\/favicon-[\w-]+\.svg)"/.exec(page)?.[1];
      expect(href).toBeDefined();
      const linked = await served.call(href!);
      expect(linked.status).toBe(200);
      expect(linked.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
      expect(linked.text).toMatch(/^<svg [^>]*xmlns="http:\/\/www.w3.org\/2000\/svg"/);
      const ico = await served.call('/favicon.ico');
      expect(ico.status).toBe(200);
      expect(ico.headers.get('content-type')).toMatch(/^image\/svg\+xml/);
      expect(ico.text).toBe(linked.text);
    } finally {
      await served.close();
    }
    // Not built: the console's 503 saying how, not a 404.
    const missing = await h.call('/favicon.ico');
    expect(missing.status).toBe(503);
    expect(missing.text).toContain('pnpm build');
  });

  it('answers 503 with how to build when the assets are missing', async () => {
    const r = await h.call('/console');
    expect(r.status).toBe(503);
    expect(r.text).toContain('pnpm build');
  });

  it('tells the console which role a token has; no token is 401', async () => {
    for (const role of ['reader', 'operator', 'admin'] as const) {
      const r = await h.call('/api/whoami', { role });
      expect(r.status).toBe(200);
      expect(r.body).toEqual({ role });
    }
    expect((await h.call('/api/whoami')).status).toBe(401);
  });
});
