'use strict';
/**
 * The comparison system: express + BullMQ doing the same job as Hookyard on
 * the same Redis. Two processes:
 *
 *   node bullmq-app.js app     an express route POST /universal_webhook/:topic
 *                              that parses the JSON body and adds one job
 *   node bullmq-app.js worker  a BullMQ worker (concurrency 50) that checks the
 *                              same condition in JavaScript and runs the same echo;
 *                              serves GET /stats and POST /reset for the bench
 *
 * accept-to-start of a job = job.processedOn - job.timestamp (ms).
 * Env: BENCH_REDIS_URL, BENCH_PREFIX (BullMQ key prefix), BENCH_CONCURRENCY (default 50).
 */
const http = require('node:http');
const { deps } = require('./lib/common');

const { Queue, Worker } = deps.bullmq();
const redisUrl = new URL(process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379');
const connection = { host: redisUrl.hostname, port: Number(redisUrl.port || 6379) };
const prefix = process.env.BENCH_PREFIX || 'benchbull';
const QUEUE = 'bench';

function listening(what, server) {
  const { port } = server.address();
  process.stdout.write(JSON.stringify({ msg: `${what} listening`, url: `http://127.0.0.1:${port}` }) + '\n');
}

function app() {
  const express = deps.express();
  const queue = new Queue(QUEUE, { connection, prefix });
  const web = express();
  web.use(express.json({ limit: '2mb' }));
  web.post('/universal_webhook/:topic', async (req, res) => {
    try {
      await queue.add(req.params.topic, req.body);
      res.json({ status: 'accepted', runs: 1 });
    } catch {
      res.status(500).json({ error: 'accept failed' });
    }
  });
  const server = web.listen(0, '127.0.0.1', () => listening('bullmq app', server));
  process.on('SIGTERM', () => {
    server.close();
    queue.close().finally(() => process.exit(0));
  });
}

function worker() {
  let completed = 0;
  let lastFinishedAt = 0;
  let samples = [];
  const w = new Worker(
    QUEUE,
    async (job) => {
      samples.push(job.processedOn - job.timestamp);
      const d = job.data || {};
      if (d.action !== 'opened') return { skipped: true };
      return { echo: { action: d.action, number: d.number } };
    },
    { connection, prefix, concurrency: Number(process.env.BENCH_CONCURRENCY || 50) },
  );
  w.on('completed', () => {
    completed += 1;
    lastFinishedAt = Date.now();
  });
  const server = http.createServer((req, res) => {
    if (req.method === 'POST' && req.url === '/reset') samples = [];
    res.writeHead(200, { 'content-type': 'application/json' });
    res.end(JSON.stringify(req.url === '/stats?samples=1' ? { completed, lastFinishedAt, samples } : { completed, lastFinishedAt }));
  });
  server.listen(0, '127.0.0.1', () => listening('bullmq worker', server));
  process.on('SIGTERM', () => {
    server.close();
    w.close().finally(() => process.exit(0));
  });
}

if (process.argv[2] === 'app') app();
else if (process.argv[2] === 'worker') worker();
else {
  process.stderr.write('usage: node bullmq-app.js app|worker\n');
  process.exit(2);
}
