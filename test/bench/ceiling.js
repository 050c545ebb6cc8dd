'use strict';
/**
 * The ceiling of the public door: a bare node:http server that reads the body
 * and does only the one Redis write a kept run needs (one EVAL: HSET of the run
 * + ZADD to an index). No parsing, no validation, no publish. Whatever Hookyard's
 * door does beyond this is its cost.
 *
 * Env: BENCH_REDIS_URL, BENCH_PREFIX (key prefix), BENCH_BODY_MAX (bytes, default 2 MiB).
 * Logs one JSON line {"msg":"ceiling listening","url":...}.
 */
const http = require('node:http');
const { deps } = require('./lib/common');

const Redis = deps.Redis();
const prefix = process.env.BENCH_PREFIX || 'benchceil';
const bodyMax = Number(process.env.BENCH_BODY_MAX || 2 * 1024 * 1024);
const redis = new Redis(process.env.BENCH_REDIS_URL || 'redis://127.0.0.1:6379');

redis.defineCommand('keepRun', {
  numberOfKeys: 2,
  lua: "redis.call('HSET', KEYS[1], 'status', 'pending', 'payload', ARGV[1], 'created', ARGV[2]) redis.call('ZADD', KEYS[2], ARGV[2], ARGV[3]) return 1",
});

let seq = 0;
const server = http.createServer((req, res) => {
  const chunks = [];
  let size = 0;
  req.on('data', (c) => {
    size += c.length;
    if (size > bodyMax) {
      res.writeHead(413).end();
      req.destroy();
      return;
    }
    chunks.push(c);
  });
  req.on('end', () => {
    const id = `${process.pid}-${++seq}`;
    const now = Date.now();
    redis.keepRun(`{${prefix}:ceil}:run:${id}`, `{${prefix}:ceil}:ix`, Buffer.concat(chunks), now, id).then(
      () => {
        res.writeHead(200, { 'content-type': 'application/json' });
        res.end('{"status":"accepted","runs":1}');
      },
      () => {
        res.writeHead(500, { 'content-type': 'application/json' });
        res.end('{"error":"accept failed"}');
      },
    );
  });
});

server.listen(0, '127.0.0.1', () => {
  const { port } = server.address();
  process.stdout.write(JSON.stringify({ msg: 'ceiling listening', url: `http://127.0.0.1:${port}` }) + '\n');
});

process.on('SIGTERM', () => {
  server.close();
  redis.quit().finally(() => process.exit(0));
});
