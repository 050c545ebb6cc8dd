/**
 * What the agent door's OAuth tests share: the real authorization server
 * (oidc-provider, in its own process) and a person's browser answering its
 * login and consent pages.
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { join } from 'node:path';
import { createInterface } from 'node:readline';

export interface AuthorizationServer {
  issuer: string;
  child: ChildProcess;
  /** `METHOD /path STATUS` for each request it answered, in order. */
  requests: string[];
}

/** Starts the authorization server for `resource`; answers its issuer and, from then on, its request log. */
export async function startAuthorizationServer(resource: string): Promise<AuthorizationServer> {
  const child = spawn(process.execPath, [join(__dirname, 'oidc-provider-server.mjs')], {
    env: { ...process.env, HOOKYARD_RESOURCE: resource },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  // Its development-mode warnings are expected; kept only to explain an early exit.
  let stderr = '';
  child.stderr.on('data', (c: Buffer) => (stderr = (stderr + c.toString()).slice(-4000)));
  const requests: string[] = [];
  const lines = createInterface({ input: child.stdout });
  const first = await new Promise<string>((resolve, reject) => {
    lines.once('line', resolve);
    child.once('exit', (code) => reject(new Error(`the authorization server exited (${code}) before listening: ${stderr}`)));
  });
  // Its own warnings share stdout; only the request lines are JSON.
  lines.on('line', (l) => l.startsWith('{"request"') && requests.push((JSON.parse(l) as { request: string }).request));
  return { issuer: (JSON.parse(first) as { issuer: string }).issuer, child, requests };
}

/**
 * What a person's browser does with the authorization URL: follows the
 * redirects (keeping cookies), signs in as `login` on the login page, agrees
 * on the consent page, and stops at the redirect back to the client (a URL
 * starting with `redirect`), which it answers. An error redirect fails with
 * the server's description.
 */
export async function authorizeInBrowser(start: URL, login: string, redirect: string): Promise<URL> {
  const jar = new Map<string, string>();
  let url = start.href;
  let form: URLSearchParams | undefined;
  for (let hop = 0; hop < 20; hop++) {
    const r = await fetch(url, {
      method: form ? 'POST' : 'GET',
      redirect: 'manual',
      headers: { cookie: [...jar].map(([k, v]) => `${k}=${v}`).join('; '), ...(form ? { 'content-type': 'application/x-www-form-urlencoded' } : {}) },
      ...(form ? { body: form.toString() } : {}),
    });
    for (const c of r.headers.getSetCookie()) {
      const pair = c.split(';')[0]!;
      const eq = pair.indexOf('=');
      const [name, value] = [pair.slice(0, eq), pair.slice(eq + 1)];
      if (value === '' || /expires=Thu, 01 Jan 1970/i.test(c)) jar.delete(name);
      else jar.set(name, value);
    }
    form = undefined;
    const location = r.headers.get('location');
    if (location) {
      const next = new URL(location, url);
      if (next.href.startsWith(redirect)) {
        if (!next.searchParams.get('code')) {
          throw new Error(`authorization failed: ${next.searchParams.get('error')} ${next.searchParams.get('error_description')}`);
        }
        return next;
      }
      url = next.href;
      continue;
    }
    const html = await r.text();
    const action = /<form[^>]*action="([^"]+)"/.exec(html)?.[1];
    const prompt = /name="prompt" value="(\w+)"/.exec(html)?.[1];
    if (!action || !prompt) throw new Error(`unexpected page (${r.status}) at ${url}: ${html.slice(0, 300)}`);
    url = new URL(action, url).href;
    form = prompt === 'login' ? new URLSearchParams({ prompt, login, password: 'any' }) : new URLSearchParams({ prompt });
  }
  throw new Error('too many redirects while authorizing');
}
