/**
 * The console's single sign-on in a real headless Chromium against a real
 * authorization server (oidc-provider, its own process) and the ingress with
 * an executor in this process: "Sign in with …" beside the token form, the
 * IdP's login and consent pages, the code + PKCE exchange from the page
 * (its CSP lets it reach exactly the token endpoint), who is signed in; an
 * operator approves a parked call and the approval, the run's history and
 * the audit name that person; a reader sees no Approve button and the API
 * refuses their answer; the token is renewed with the refresh token before
 * it expires; signing out forgets the IdP's tokens.
 * Screenshots: sso-sign-in, sso-operator-approved.
 */
import type { Page } from 'playwright-core';
import { TOKENS } from '../../services/ingress/test/support/harness';
import { countedTool, startMcpWorld, until, type McpWorld } from '../../services/ingress/test/support/mcp-world';
import { startPeopleIdp, type AuthorizationServer } from '../../services/ingress/test/support/oidc-people';
import { ConsoleBrowser, requireConsoleBrowser, shot, withPage } from './browser';

jest.setTimeout(150_000);

const CONSOLE_CLIENT = 'hookyard-console';
const RULES = [{ name: 'deploys need a person', tools: ['deploy'], agents: ['*'], action: 'approve' as const, message: 'an agent wants to deploy' }];

describe('console single sign-on with the IdP (Chromium, oidc-provider)', () => {
  let w: McpWorld;
  let idp: AuthorizationServer;
  let browser: ConsoleBrowser;
  let agentToken: string;
  const deploy = countedTool('deploy');

  beforeAll(async () => {
    requireConsoleBrowser();
    w = await startMcpWorld({
      tools: [deploy],
      executor: true,
      rules: RULES,
      settingsFor: async (url) => {
        idp = await startPeopleIdp({
          agentResource: `${url}/mcp`,
          apiResource: `${url}/api`,
          // Renewed a minute before expiry, so 65 s tokens are renewed about 5 s after sign-in.
          apiTokenTtl: 65,
          people: { 'u-1001': { roles: ['hy-ops'], preferred_username: 'olivia' }, 'u-2002': { roles: ['reader'], email: 'rita@example.com' } },
          clients: [
            {
              client_id: CONSOLE_CLIENT,
              redirect_uris: [`${url}/console/`],
              token_endpoint_auth_method: 'none',
              grant_types: ['authorization_code', 'refresh_token'],
              response_types: ['code'],
            },
          ],
        });
        return {
          publicUrl: url,
          oidcIssuers: [idp.issuer],
          oidcApiAudience: `${url}/api`,
          oidcRoleMap: { 'hy-ops': 'operator' },
          oidcConsoleClientId: CONSOLE_CLIENT,
          // The test IdP issues API tokens for its API scope (as Okta's custom scopes or Entra's api:// scopes).
          oidcConsoleScope: 'openid offline_access hookyard:api',
        };
      },
    });
    agentToken = await w.agent('bot', ['deploy']);
    browser = await ConsoleBrowser.launch(w.url);
  }, 60_000);
  afterAll(async () => {
    await browser?.close();
    await w?.close();
    idp?.close();
  });

  const parkDeploy = async (n: number): Promise<{ id: string; interaction: { id: string } }> => {
    const r = await fetch(`${w.url}/api/calls`, {
      method: 'POST',
      headers: { authorization: `Bearer ${agentToken}`, 'content-type': 'application/json' },
      body: JSON.stringify({ tool: 'deploy', arguments: { n }, idempotency_key: `sso-${n}` }),
    });
    const body = (await r.json()) as { id: string; status: string; interaction: { id: string } };
    expect({ status: r.status, body }).toMatchObject({ status: 202, body: { status: 'parked' } });
    return body;
  };
  const admin = async (path: string) => (await fetch(`${w.url}${path}`, { headers: { authorization: `Bearer ${TOKENS.admin}` } })).json() as Promise<any>;

  /** The console's button, then the IdP's login and consent pages, back to the console signed in. */
  async function signInAtIdp(page: Page, login: string, name: string, role: string): Promise<void> {
    await page.goto(`${w.url}/console`);
    await page.getByLabel('API token').waitFor();
    await page.getByRole('button', { name: `Sign in with ${new URL(idp.issuer).host}` }).click();
    await page.locator('input[name="login"]').fill(login);
    await page.locator('input[name="password"]').fill('any');
    await page.locator('button[type="submit"]').click();
    await page.getByRole('button', { name: 'Continue' }).click();
    await page.getByTestId('person').filter({ hasText: name }).waitFor();
    await page.getByTestId('role').filter({ hasText: role }).waitFor();
    // The code is gone from the address once traded.
    expect(new URL(page.url()).search).toBe('');
  }

  it('a person with the operator role signs in through the IdP and approves a call; the approval, the run and the audit name them', async () => {
    const page0 = await fetch(`${w.url}/console`);
    expect(page0.headers.get('content-security-policy')).toContain(`connect-src 'self' ${idp.issuer}/token;`);
    expect(await (await fetch(`${w.url}/console/sso.json`)).json()).toEqual({
      sso: {
        issuer: idp.issuer,
        client_id: CONSOLE_CLIENT,
        resource: `${w.url}/api`,
        authorization_endpoint: `${idp.issuer}/auth`,
        token_endpoint: `${idp.issuer}/token`,
        scope: 'openid offline_access hookyard:api',
      },
    });
    const parked = await parkDeploy(1);
    await withPage(browser, async (page, errors) => {
      await signInAtIdp(page, 'u-1001', 'olivia', 'operator');
      await shot(page, 'sso-sign-in');
      await page.goto(`${w.url}/console#/runs/${parked.id}`);
      await page.getByRole('button', { name: 'Approve' }).click();
      const dialog = page.getByRole('dialog', { name: `Approve deploy for run ${parked.id}?` });
      await dialog.getByRole('button', { name: 'Approve' }).click();
      await page
        .getByTestId('answer-outcome')
        .filter({ hasText: `Approved: run ${parked.id} resumed and calls its tool now.` })
        .waitFor();
      // This in-process world has no live run stream: the story is read again once the run is done.
      await until(async () => (await w.stores.runs.get(parked.id))?.status === 'succeeded', 20_000, 'the approved run');
      await page.reload();
      await page.getByTestId('run-approval').filter({ hasText: 'approved by person:olivia (sub u-1001)' }).waitFor();
      await shot(page, 'sso-operator-approved');
      expect(errors).toEqual([]);
    });
    const who = 'person:olivia (sub u-1001)';
    expect((await w.stores.interactions.get(parked.interaction.id))?.resolution).toMatchObject({ by: who, via: 'api' });
    const run = await admin(`/api/hook-runs/${parked.id}`);
    expect((run.history as { detail: string }[]).map((h) => h.detail).join('\n')).toContain(who);
    const audit = await admin(`/api/audit?target=${parked.interaction.id}&action=interaction.approve`);
    expect(audit.entries.map((e: { actor: unknown }) => e.actor)).toEqual([{ kind: 'person', role: 'operator', label: who }]);
  });

  it('a person with only the reader role sees no Approve button and the API refuses their answer; the token is renewed before it expires; signing out forgets the tokens', async () => {
    const parked = await parkDeploy(2);
    await withPage(browser, async (page, errors) => {
      await signInAtIdp(page, 'u-2002', 'rita@example.com', 'reader');
      await page.goto(`${w.url}/console#/runs/${parked.id}`);
      await page.getByTestId('interaction-link').waitFor();
      expect(await page.getByRole('button', { name: 'Approve' }).count()).toBe(0);
      // The API refuses the reader's own token, whatever a page would offer.
      const status = await page.evaluate(async (id) => {
        const r = await fetch(`/api/interactions/${id}/approve`, {
          method: 'POST',
          headers: { authorization: `Bearer ${sessionStorage.getItem('hookyard.token')}`, 'content-type': 'application/json' },
          body: '{}',
        });
        return r.status;
      }, parked.interaction.id);
      expect(status).toBe(403);
      const first = await page.evaluate(() => sessionStorage.getItem('hookyard.token'));
      await page.waitForFunction((t) => sessionStorage.getItem('hookyard.token') !== t, first, { timeout: 30_000 });
      const renewed = await page.evaluate(() => sessionStorage.getItem('hookyard.token'));
      // Renewed, not signed out (which clears it).
      expect(renewed).toEqual(expect.any(String));
      expect(await (await fetch(`${w.url}/api/whoami`, { headers: { authorization: `Bearer ${renewed}` } })).json()).toMatchObject({
        role: 'reader',
        person: { subject: 'u-2002' },
      });
      await page.getByRole('button', { name: 'Sign out' }).click();
      await page.getByLabel('API token').waitFor();
      expect(await page.evaluate(() => Object.keys(sessionStorage).filter((k) => k.startsWith('hookyard.')))).toEqual([]);
      expect(errors).toEqual([]);
    });
    expect((await w.stores.interactions.get(parked.interaction.id))?.status).toBe('open');
  });
});
