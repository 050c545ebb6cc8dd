/**
 * The door and the senders' own handshakes, through the whole ingress app on
 * 127.0.0.1: Slack's signed url_verification answered with its challenge,
 * GitHub's ping answered and kept nowhere, a GitHub delivery without
 * X-GitHub-Delivery refused with a 400 naming the header. Bodies are
 * Octokit's example webhook payloads (npm @octokit/webhooks-examples), signed
 * with @octokit/webhooks-methods; Slack's with its documented v0 scheme.
 */
import { createHmac } from 'node:crypto';
import { sign as githubSign } from '@octokit/webhooks-methods';
import { createMemoryStores, type Stores } from '@hookyard/store';
import { createSecretResolver } from '../src/verify';
import { hook, startHarness, type Harness } from './support/harness';

// eslint-disable-next-line @typescript-eslint/no-require-imports
const examples = require('@octokit/webhooks-examples') as Array<{ name: string; examples: Array<Record<string, unknown>> }>;
const example = (name: string, action?: string) => examples.find((e) => e.name === name)!.examples.find((x) => action === undefined || x.action === action)!;

const SLACK_SECRET = '8f742231b10e8888abcd99yyyzzz85a5';
const GITHUB_SECRET = "It's a Secret to Everybody";
const env = { HOOKS_SECRET_SLACK_SIGNING: SLACK_SECRET, HOOKS_SECRET_GITHUB_WEBHOOK: GITHUB_SECRET } as NodeJS.ProcessEnv;

/** Slack's request signing: `v0=` + hex HMAC-SHA256 of `v0:{timestamp}:{body}` with the signing secret. */
function slackHeaders(body: string, contentType = 'application/json'): Record<string, string> {
  const ts = String(Math.floor(Date.now() / 1000));
  return {
    'content-type': contentType,
    'x-slack-request-timestamp': ts,
    'x-slack-signature': `v0=${createHmac('sha256', SLACK_SECRET).update(`v0:${ts}:${body}`).digest('hex')}`,
  };
}

let h: Harness;
let stores: Stores;

beforeAll(async () => {
  stores = createMemoryStores();
  h = await startHarness({ stores, deps: { secrets: createSecretResolver({ env }) } });
  await stores.hooks.putVerifier({
    topic: 'slack-events',
    kind: 'slack',
    settings: {},
    secrets: ['env:HOOKS_SECRET_SLACK_SIGNING'],
    created_at: 'x',
    updated_at: 'x',
  });
  await stores.hooks.putVerifier({
    topic: 'github',
    kind: 'github',
    settings: {},
    secrets: ['env:HOOKS_SECRET_GITHUB_WEBHOOK'],
    created_at: 'x',
    updated_at: 'x',
  });
  await stores.hooks.putHook({ ...(hook('slack-any', 'slack-events') as any), created_at: 'x', updated_at: 'x' });
  await stores.hooks.putHook({ ...(hook('github-any', 'github') as any), created_at: 'x', updated_at: 'x' });
});
afterAll(() => h.close());

const runs = async (topic: string) => (await stores.runs.list({ topic }, 100)).runs.length;
const post = (topic: string, body: string, headers: Record<string, string>) => h.call(`/universal_webhook/${topic}`, { method: 'POST', body, headers });

describe('Slack', () => {
  const handshake = JSON.stringify({
    token: 'Jhj5dZrVaK7ZwHHjRyZWjbDl',
    challenge: '3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P',
    type: 'url_verification',
  });

  it('answers a signed url_verification with its challenge and keeps nothing', async () => {
    const r = await post('slack-events', handshake, slackHeaders(handshake));
    expect(r.status).toBe(200);
    expect(r.text).toBe('{"challenge":"3eZbrw1aBm2rZgRNFdxV2595E9CY3gmdALWMmHkvFXO7tYXAYM8P"}');
    expect(r.headers.get('content-type')).toMatch(/^application\/json/);
    expect(await runs('slack-events')).toBe(0);
  });

  it('refuses an unsigned or badly signed one with the constant 401, challenge unsaid', async () => {
    const bad = { ...slackHeaders(handshake), 'x-slack-signature': `v0=${'0'.repeat(64)}` };
    const r = await post('slack-events', handshake, bad);
    expect(r.status).toBe(401);
    expect(r.text).not.toContain('3eZbrw1a');
    expect((await post('slack-events', handshake, { 'content-type': 'application/json' })).status).toBe(401);
  });

  it('an event callback is kept as before', async () => {
    const event = JSON.stringify({ type: 'event_callback', event_id: 'Ev1', event: { type: 'app_mention', text: 'url_verification is just a word here' } });
    const r = await post('slack-events', event, slackHeaders(event));
    expect(r.body).toEqual({ status: 'accepted', runs: 1, run_ids: [expect.any(String)], event_id: expect.any(String) });
    expect(await runs('slack-events')).toBe(1);
  });
});

describe('GitHub', () => {
  const signed = async (event: string, body: string, delivery?: string) => ({
    'content-type': 'application/json',
    'x-github-event': event,
    'x-hub-signature-256': await githubSign(GITHUB_SECRET, body),
    ...(delivery ? { 'x-github-delivery': delivery } : {}),
  });

  it("answers the ping event (Octokit's example) with pong and keeps nothing", async () => {
    const body = JSON.stringify(example('ping'));
    const r = await post('github', body, await signed('ping', body, 'ping-delivery-1'));
    expect(r.status).toBe(200);
    expect(r.body).toEqual({ status: 'pong' });
    expect(await runs('github')).toBe(0);
  });

  it('refuses a signed delivery without X-GitHub-Delivery with a 400 naming the header, keeping nothing', async () => {
    const body = JSON.stringify(example('pull_request', 'opened'));
    const r = await post('github', body, await signed('pull_request', body));
    expect(r.status).toBe(400);
    expect(r.body.error).toContain('missing header X-GitHub-Delivery');
    expect(await runs('github')).toBe(0);
  });

  it('keeps a pull_request delivery once; a redelivery (same X-GitHub-Delivery) is a duplicate', async () => {
    const body = JSON.stringify(example('pull_request', 'opened'));
    const headers = await signed('pull_request', body, '8f1b2c00-5f4e-11ef-9a52-0c0a9f3b1d2e');
    expect((await post('github', body, headers)).body).toEqual({ status: 'accepted', runs: 1, run_ids: [expect.any(String)], event_id: expect.any(String) });
    expect((await post('github', body, headers)).body).toEqual({ status: 'duplicate' });
    expect(await runs('github')).toBe(1);
  });
});
