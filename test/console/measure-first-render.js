#!/usr/bin/env node
/**
 * Time to first render of the console's overview and runs page with many runs kept:
 * starts `hookyard serve --role all` (embedded default), keeps N runs through
 * the door (default 100,000; a hook whose condition is false, so each ends
 * skipped), then loads /console#/ (the overview) and /console#/runs in
 * Debian's headless Chromium several times each and reports, per load, the
 * time from navigation start until the page shows what it shows first: the
 * overview's live counts and every chart drawn, the runs page's first 50 rows
 * (performance.now() in the page).
 *
 *   pnpm build && node test/console/measure-first-render.js [--runs 100000] [--loads 5]
 */
/* global document -- the waitForFunction callback runs in the page */
const { spawn } = require('node:child_process');
const { join } = require('node:path');
const { chromium } = require('playwright-core');

const arg = (name, dflt) => {
  const i = process.argv.indexOf(`--${name}`);
  return i > 0 ? Number(process.argv[i + 1]) : dflt;
};
const RUNS = arg('runs', 100_000);
const LOADS = arg('loads', 5);

/** The pages measured, each ready when what it shows first is in the DOM (the functions run in the page). */
const PAGES = [
  {
    name: 'overview',
    hash: '/',
    what: 'the live counts and every chart drawn',
    ready: () => {
      const held = document.querySelector('[data-testid="held-failed"]');
      const counted = held && /\d/.test(held.textContent || '');
      const charts = ['chart-runs', 'chart-accept', 'chart-duration'].map((id) => document.querySelector(`[data-testid="${id}"] canvas`));
      return counted && charts.every(Boolean) && performance.now();
    },
  },
  {
    name: 'runs page',
    hash: '/runs',
    what: 'the first 50 rows in the DOM',
    ready: () => document.querySelectorAll('tr[data-run]').length >= 50 && performance.now(),
  },
];
const TOKEN = 'measure-admin-token-0123456789abcdef';
const CLI = join(__dirname, '..', '..', 'packages', 'cli', 'bin', 'hookyard.js');

async function main() {
  const server = spawn(process.execPath, [CLI, 'serve', '--role', 'all'], {
    env: {
      PATH: process.env.PATH,
      HOOKS_HTTP_PORT: '0',
      HOOKS_API_TOKENS: `admin:${TOKEN}`,
      HOOKS_DOOR_RATE: '0',
      HOOKS_API_RATE: '0',
      HOOKS_LOG_LEVEL: 'info',
    },
    stdio: ['ignore', 'pipe', 'inherit'],
  });
  let browser;
  try {
    const url = await new Promise((resolve, reject) => {
      let buf = '';
      const onData = (c) => {
        buf += c;
        const m = /"url":"(http:[^"]+)"[^\n]*listening/.exec(buf);
        if (!m) return;
        server.stdout.off('data', onData);
        resolve(m[1]);
      };
      server.stdout.on('data', onData);
      server.once('exit', (code) => reject(new Error(`serve exited ${code}`)));
    });
    server.stdout.resume();
    const headers = { authorization: `Bearer ${TOKEN}`, 'content-type': 'application/json' };
    await fetch(`${url}/api/hooks`, {
      method: 'POST',
      headers,
      body: JSON.stringify({ name: 'bulk', topic: 'bulk', tool: 'echo', condition: { content: 'false' } }),
    });
    const t0 = Date.now();
    let sent = 0;
    const worker = async () => {
      while (sent < RUNS) {
        const n = sent++;
        const res = await fetch(`${url}/universal_webhook/bulk`, {
          method: 'POST',
          headers: { 'content-type': 'application/json' },
          body: JSON.stringify({ n }),
        });
        if (res.status !== 200) throw new Error(`door answered ${res.status}`);
        await res.arrayBuffer();
      }
    };
    await Promise.all(Array.from({ length: 16 }, worker));
    console.log(`kept ${RUNS} runs in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
    const api0 = performance.now();
    const page1 = await (await fetch(`${url}/api/hook-runs?limit=50`, { headers })).json();
    console.log(
      `GET /api/hook-runs?limit=50: ${(performance.now() - api0).toFixed(1)} ms, ${page1.runs.length} runs, next_cursor ${page1.next_cursor ? 'set' : 'null'}`,
    );

    browser = await chromium.launch({
      executablePath: process.env.HOOKYARD_CHROMIUM ?? '/usr/bin/chromium',
      args: ['--no-sandbox', '--disable-gpu', '--disable-dev-shm-usage'],
    });
    for (const target of PAGES) {
      const times = [];
      for (let i = 0; i < LOADS; i++) {
        const context = await browser.newContext();
        await context.addInitScript((t) => sessionStorage.setItem('hookyard.token', t), TOKEN);
        const page = await context.newPage();
        await page.goto(`${url}/console#${target.hash}`);
        const ms = await (await page.waitForFunction(target.ready, null, { timeout: 60_000 })).jsonValue();
        times.push(ms);
        await context.close();
      }
      times.sort((a, b) => a - b);
      console.log(
        `${target.name} first render (${target.what}, from navigation start), ${LOADS} loads: min ${times[0].toFixed(0)} ms, median ${times[Math.floor(times.length / 2)].toFixed(0)} ms, max ${times[times.length - 1].toFixed(0)} ms`,
      );
    }
  } finally {
    await browser?.close().catch(() => undefined);
    server.kill('SIGTERM');
  }
}

main().catch((err) => {
  console.error(err);
  process.exitCode = 1;
});
