import { randomBytes } from 'node:crypto';
import { existsSync, readFileSync, readdirSync } from 'node:fs';
import { dirname, join } from 'node:path';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';
import type { ConsoleSso } from '../oidc/console-sso';

/** Where the console is served. */
export const CONSOLE_PATH = '/console';

/**
 * The console's Content-Security-Policy: its own scripts only (no inline
 * script, no eval), its own styles plus the <style> elements the jq editor
 * (CodeMirror) mounts, which carry the page's one-time nonce; API calls to
 * this origin only, no frames, no forms posted elsewhere. `nonce` absent
 * (the assets themselves): styles from this origin only. `tokenEndpoint`
 * (single sign-on configured): the IdP's token endpoint, exactly, may be
 * fetched too (the code exchange and renewal); nothing else of the IdP.
 */
export function consoleCsp(nonce?: string, tokenEndpoint?: string): string {
  return [
    "default-src 'none'",
    "script-src 'self'",
    nonce ? `style-src 'self' 'nonce-${nonce}'` : "style-src 'self'",
    "img-src 'self' data:",
    "font-src 'self'",
    tokenEndpoint ? `connect-src 'self' ${cspSource(tokenEndpoint)}` : "connect-src 'self'",
    "base-uri 'none'",
    "form-action 'none'",
    "frame-ancestors 'none'",
  ].join('; ');
}

/** A URL as a CSP source: its origin and path, without query (none of `;` or `,`, which would end the directive). */
function cspSource(url: string): string {
  const u = new URL(url);
  return `${u.origin}${u.pathname}`.replace(/[;,\s]/g, encodeURIComponent);
}

/** Where browsers ask for a site's icon when a page names none (the console's page names its own). */
export const FAVICON_PATH = '/favicon.ico';

/** The console's icon as built (`assets/favicon-<hash>.svg`, from src/favicon.svg); undefined when not built. */
function readIcon(assetsDir: string): Buffer | undefined {
  const dir = join(assetsDir, 'assets');
  const name = existsSync(dir) ? readdirSync(dir).find((f) => /^favicon-[\w-]+\.svg$/.test(f)) : undefined;
  return name === undefined ? undefined : readFileSync(join(dir, name));
}

/** Where the page's nonce goes in index.html (a meta tag the console reads for CodeMirror). */
export const NONCE_PLACEHOLDER = '__HOOKYARD_CSP_NONCE__';

const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/**
 * The built assets: the console package's dist/, written by `pnpm build`.
 * Found through the package (a dependency of the ingress, so `pnpm deploy`
 * ships it), not a path into another folder: the same from src/ under
 * ts-jest, from dist/ and in the image.
 */
export const DEFAULT_CONSOLE_ASSETS = join(dirname(require.resolve('@hookyard/console/package.json')), 'dist');

/**
 * `GET /console` (the page), `/console/assets/*` (hashed, so cached for a
 * year) and `GET /favicon.ico` (the console's SVG icon, for whoever asks there). The console signs in with the same bearer tokens as the API; the
 * page itself holds nothing secret, so it needs no token. Assets that were
 * not built answer 503 saying how to build them; an unknown asset is the
 * usual JSON 404. `GET /console/sso.json` says how to sign in at the IdP
 * (`{"sso": null}` without HOOKS_OIDC_CONSOLE_CLIENT_ID): public, like the
 * IdP's own metadata.
 */
export function consoleRouter(assetsDir: string = DEFAULT_CONSOLE_ASSETS, sso: ConsoleSso | null = null): Router {
  const router = express.Router();
  const headers = (_req: Request, res: Response, next: NextFunction) => {
    res.set(CONSOLE_HEADERS).set('Content-Security-Policy', consoleCsp());
    next();
  };
  let page: string | undefined;
  const index = async (_req: Request, res: Response) => {
    const tokenEndpoint = (await sso?.config())?.token_endpoint;
    const file = join(assetsDir, 'index.html');
    if (page === undefined && existsSync(file)) page = readFileSync(file, 'utf8');
    if (page === undefined) {
      res.status(503).type('text/plain').send('the console assets are not built; run `pnpm build`\n');
      return;
    }
    // A fresh nonce per answer, so a style injected through some other hole cannot guess it.
    const nonce = randomBytes(18).toString('base64');
    res.set('Content-Security-Policy', consoleCsp(nonce, tokenEndpoint)).type('text/html; charset=utf-8').send(page.split(NONCE_PLACEHOLDER).join(nonce));
  };
  // The console's icon (the page links its hashed copy) also where browsers and tools look by default.
  let icon: Buffer | undefined;
  router.get(FAVICON_PATH, headers, (_req, res) => {
    icon ??= readIcon(assetsDir);
    if (icon === undefined) {
      res.status(503).type('text/plain').send('the console assets are not built; run `pnpm build`\n');
      return;
    }
    res.set('Cache-Control', 'public, max-age=86400').type('image/svg+xml').send(icon);
  });
  router.get(`${CONSOLE_PATH}/sso.json`, headers, (_req, res, next) => {
    (sso ? sso.config() : Promise.resolve(null)).then((config) => res.set('Cache-Control', 'no-store').json({ sso: config }), next);
  });
  // Non-strict routing: this also answers /console/.
  router.get(CONSOLE_PATH, headers, (req, res, next) => void index(req, res).catch(next));
  router.use(
    `${CONSOLE_PATH}/assets`,
    headers,
    express.static(join(assetsDir, 'assets'), {
      index: false,
      dotfiles: 'deny',
      etag: false,
      lastModified: false,
      setHeaders: (res) => res.setHeader('Cache-Control', 'public, max-age=31536000, immutable'),
    }),
  );
  return router;
}
