/**
 * The clients a new user tries first, given no token, against an agent door
 * whose issuer is a real authorization server (oidc-provider, in its own
 * process): `mcp-remote` (the stdio proxy desktop clients launch) and the
 * MCP Inspector CLI, each run as its own process as a person would run it.
 * Before the agent door was a protected resource both went into OAuth
 * discovery and ended at "no route POST /register"; now mcp-remote follows
 * the 401's resource metadata to the issuer, registers there, and once the
 * person signs in lists tools; the Inspector CLI (no OAuth of its own)
 * prints Hookyard's sentence, and connects with the token passed as a header.
 */
import { spawn } from 'node:child_process';
import { mkdtempSync, readdirSync, readFileSync, rmSync } from 'node:fs';
import { createServer } from 'node:net';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { Client } from '@modelcontextprotocol/sdk/client/index.js';
import { StdioClientTransport } from '@modelcontextprotocol/sdk/client/stdio.js';
import { TOKENS } from './support/harness';
import { authorizeInBrowser, startAuthorizationServer, type AuthorizationServer } from './support/oidc-flow';
import { countedTool, startMcpWorld, until, type McpWorld } from './support/mcp-world';

const MODULES = join(__dirname, '..', 'node_modules');
const MCP_REMOTE = join(MODULES, 'mcp-remote', 'dist', 'proxy.js');
const INSPECTOR_CLI = join(MODULES, '@modelcontextprotocol', 'inspector-cli', 'build', 'cli.js');
// It finds its own package.json as `../package.json` from the working directory, so it runs from its build folder.
const INSPECTOR_CWD = join(MODULES, '@modelcontextprotocol', 'inspector-cli', 'build');

/** A free loopback port, for mcp-remote's OAuth callback. */
async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((resolve) => s.listen(0, '127.0.0.1', resolve));
  const port = (s.address() as { port: number }).port;
  await new Promise<void>((resolve) => s.close(() => resolve()));
  return port;
}

/** Runs a client process to its end (killed after `ms`); answers what it printed and its exit code. */
async function run(args: string[], env: NodeJS.ProcessEnv, cwd: string, ms = 30_000): Promise<{ out: string; err: string; code: number | null }> {
  const child = spawn(process.execPath, args, { env, cwd, stdio: ['ignore', 'pipe', 'pipe'] });
  let out = '';
  let err = '';
  child.stdout.on('data', (c: Buffer) => (out += c.toString()));
  child.stderr.on('data', (c: Buffer) => (err += c.toString()));
  const timer = setTimeout(() => child.kill('SIGKILL'), ms);
  const code = await new Promise<number | null>((resolve) => child.once('close', resolve));
  clearTimeout(timer);
  return { out, err, code };
}

describe('the clients people try first (mcp-remote, MCP Inspector CLI) against the agent door with a real authorization server', () => {
  let w: McpWorld;
  let as: AuthorizationServer;
  let home: string;
  let mcpRemote: StdioClientTransport | undefined;
  // No browser here: xdg-open hands the URL to $BROWSER, which does nothing; the test is the person's browser.
  const env = (): NodeJS.ProcessEnv => ({ ...process.env, HOME: home, BROWSER: 'true', DISPLAY: '', WAYLAND_DISPLAY: '' });

  beforeAll(async () => {
    home = mkdtempSync(join(tmpdir(), 'hookyard-clients-'));
    w = await startMcpWorld({
      tools: [countedTool('echo')],
      settingsFor: async (url) => {
        as = await startAuthorizationServer(`${url}/mcp`);
        return { publicUrl: url, oidcIssuers: [as.issuer] };
      },
    });
    const made = await fetch(`${w.url}/api/agents`, {
      method: 'POST',
      headers: { authorization: `Bearer ${TOKENS.admin}`, 'content-type': 'application/json' },
      body: JSON.stringify({ name: 'desk-agent', tools_allow: ['echo'], identities: [{ issuer: as.issuer, subject: 'dana' }] }),
    });
    expect(made.status).toBe(201);
  }, 60_000);
  afterAll(async () => {
    await mcpRemote?.close();
    await w?.close();
    as?.child.kill('SIGTERM');
    if (home) rmSync(home, { recursive: true, force: true });
  });

  it('mcp-remote, given no token, follows the 401 to the issuer, registers there (not POST /register), and after sign-in lists tools', async () => {
    const port = await freePort();
    // Where mcp-remote registers its callback (it names it localhost, and listens on 127.0.0.1).
    const redirect = `http://localhost:${port}/oauth/callback`;
    const ingressFrom = w.requests.length;
    // mcp-remote as a desktop client launches it: a stdio server, driven here by the MCP SDK client.
    let log = '';
    const transport = (mcpRemote = new StdioClientTransport({
      command: process.execPath,
      args: [MCP_REMOTE, `${w.url}/mcp`, String(port), '--allow-http', '--transport', 'http-only'],
      env: env() as Record<string, string>,
      stderr: 'pipe',
    }));
    transport.stderr?.on('data', (c: Buffer) => (log += c.toString()));
    const client = new Client({ name: 'desktop-client', version: '1.0.0' });
    const connected = client.connect(transport, { timeout: 60_000 });
    connected.catch(() => undefined);

    // It prints where the person should sign in, and there is no browser: the test signs in as that person.
    await until(() => /Please authorize this client by visiting:\s*\n(\S+)/.test(log), 30_000, `mcp-remote's authorization URL (its log so far: ${log})`);
    const start = new URL(/Please authorize this client by visiting:\s*\n(\S+)/.exec(log)![1]!);
    expect(start.origin).toBe(as.issuer);
    expect(start.searchParams.get('resource')).toBe(`${w.url}/mcp`);
    expect(start.searchParams.get('code_challenge_method')).toBe('S256');

    const seenAtHookyard = w.requests.slice(ingressFrom);
    // Its first words to /mcp (a GET probe, then the POST) are refused with the challenge.
    expect(seenAtHookyard[0]).toMatchObject({
      line: expect.stringMatching(/^(GET|POST) \/mcp 401$/),
      wwwAuthenticate: expect.stringContaining(`resource_metadata="${w.url}/.well-known/oauth-protected-resource/mcp"`),
    });
    expect(seenAtHookyard.map((r) => r.line)).toContain('GET /.well-known/oauth-protected-resource/mcp 200');
    expect(seenAtHookyard.map((r) => r.line).filter((l) => l.includes('/register'))).toEqual([]);
    expect(as.requests).toEqual(expect.arrayContaining(['GET /.well-known/oauth-authorization-server 200', 'POST /reg 201']));
    expect(as.requests.indexOf('GET /.well-known/oauth-authorization-server 200')).toBeLessThan(as.requests.indexOf('POST /reg 201'));

    // The provider sends the browser back to mcp-remote's loopback callback, which trades the code for a token.
    const back = await authorizeInBrowser(start, 'dana', redirect);
    expect((await fetch(back)).status).toBe(200);
    await connected;
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(['echo']);
    expect(as.requests).toContain('POST /token 200');
    await client.close();
  }, 90_000);

  it('the MCP Inspector CLI, given no token, gets the 401 whose metadata names the issuer; with the IdP token as a header it lists tools', async () => {
    const ingressFrom = w.requests.length;
    const bare = await run([INSPECTOR_CLI, '--cli', `${w.url}/mcp`, '--method', 'tools/list'], env(), INSPECTOR_CWD);
    expect(bare.code).not.toBe(0);
    // It has no OAuth of its own: it shows Hookyard's sentence, and the challenge it was given leads to the issuer.
    expect(bare.err).toContain('Error POSTing to endpoint: {"error":{"kind":"unauthorized","message":"missing bearer token');
    const challenged = w.requests.slice(ingressFrom).find((r) => r.line === 'POST /mcp 401');
    expect(challenged?.wwwAuthenticate).toContain(`resource_metadata="${w.url}/.well-known/oauth-protected-resource/mcp"`);
    expect(
      w.requests
        .slice(ingressFrom)
        .map((r) => r.line)
        .filter((l) => l.includes('/register')),
    ).toEqual([]);
    const metadata = (await (await fetch(`${w.url}/.well-known/oauth-protected-resource/mcp`)).json()) as Record<string, unknown>;
    expect(metadata).toMatchObject({ resource: `${w.url}/mcp`, authorization_servers: [as.issuer] });

    // The access token mcp-remote kept for this person in the test above (under HOME/.mcp-auth), passed as the Inspector CLI's header.
    const kept = readdirSync(join(home, '.mcp-auth'), { recursive: true, encoding: 'utf8' }).filter((f) => f.endsWith('tokens.json'));
    expect(kept).not.toEqual([]);
    const token = (JSON.parse(readFileSync(join(home, '.mcp-auth', kept[0]!), 'utf8')) as { access_token: string }).access_token;
    const listed = await run(
      [INSPECTOR_CLI, '--cli', `${w.url}/mcp`, '--method', 'tools/list', '--header', `Authorization: Bearer ${token}`],
      env(),
      INSPECTOR_CWD,
    );
    expect(listed).toMatchObject({ code: 0 });
    expect((JSON.parse(listed.out.slice(listed.out.indexOf('{'))) as { tools: { name: string }[] }).tools.map((t) => t.name)).toEqual(['echo']);
  }, 90_000);
});
