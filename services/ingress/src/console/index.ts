import { existsSync, readFileSync } from 'node:fs';
import { join, resolve } from 'node:path';
import express, { type NextFunction, type Request, type Response, type Router } from 'express';

/** Where the console is served. */
export const CONSOLE_PATH = '/console';

/**
 * The console's Content-Security-Policy: its own scripts and styles only (no
 * inline script, no inline style attribute, no eval), API calls to this
 * origin only, no frames, no forms posted elsewhere.
 */
export const CONSOLE_CSP = [
  "default-src 'none'",
  "script-src 'self'",
  "style-src 'self'",
  "img-src 'self' data:",
  "font-src 'self'",
  "connect-src 'self'",
  "base-uri 'none'",
  "form-action 'none'",
  "frame-ancestors 'none'",
].join('; ');

const CONSOLE_HEADERS: Readonly<Record<string, string>> = {
  'Content-Security-Policy': CONSOLE_CSP,
  'X-Frame-Options': 'DENY',
  'Referrer-Policy': 'no-referrer',
  'Cross-Origin-Opener-Policy': 'same-origin',
  'Cross-Origin-Resource-Policy': 'same-origin',
};

/**
 * The built assets: `pnpm build` writes them to the ingress's
 * dist/console-assets (the same folder from src/ under ts-jest and from dist/).
 */
export const DEFAULT_CONSOLE_ASSETS = resolve(__dirname, '..', '..', 'dist', 'console-assets');

/**
 * `GET /console` (the page) and `/console/assets/*` (hashed, so cached for a
 * year). The console signs in with the same bearer tokens as the API; the
 * page itself holds nothing secret, so it needs no token. Assets that were
 * not built answer 503 saying how to build them; an unknown asset is the
 * usual JSON 404.
 */
export function consoleRouter(assetsDir: string = DEFAULT_CONSOLE_ASSETS): Router {
  const router = express.Router();
  const headers = (_req: Request, res: Response, next: NextFunction) => {
    res.set(CONSOLE_HEADERS);
    next();
  };
  let page: string | undefined;
  const index = (_req: Request, res: Response) => {
    const file = join(assetsDir, 'index.html');
    if (page === undefined && existsSync(file)) page = readFileSync(file, 'utf8');
    if (page === undefined) {
      res.status(503).type('text/plain').send('the console assets are not built; run `pnpm build`\n');
      return;
    }
    res.type('text/html; charset=utf-8').send(page);
  };
  // Non-strict routing: this also answers /console/.
  router.get(CONSOLE_PATH, headers, index);
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
