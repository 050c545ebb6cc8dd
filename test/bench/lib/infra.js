'use strict';
/** Redis and NATS around a bench run: versions, and deleting what one prefix left behind. */
const os = require('node:os');
const { deps, log } = require('./common');

const REDIS_URL = process.env.REDIS_URL || 'redis://127.0.0.1:6379';
const NATS_URL = process.env.NATS_URL || 'nats://127.0.0.1:4222';

function redisClient() {
  const Redis = deps.Redis();
  return new Redis(REDIS_URL, { maxRetriesPerRequest: 2, lazyConnect: false });
}

/** UNLINKs every key that contains `prefix` (or matches `pattern`) by SCAN, in batches. Returns how many. */
async function deleteRedisKeys(prefix, pattern = `*${prefix}*`) {
  const r = redisClient();
  let n = 0;
  try {
    let cursor = '0';
    do {
      const [next, keys] = await r.scan(cursor, 'MATCH', pattern, 'COUNT', 20000);
      cursor = next;
      if (keys.length) {
        n += keys.length;
        await r.unlink(...keys);
      }
    } while (cursor !== '0');
  } finally {
    r.disconnect();
  }
  return n;
}

/** Deletes every JetStream stream whose name starts with the prefix (upper-cased, as the bus names them). */
async function deleteStreams(prefix) {
  const { connect } = deps.nats();
  const nc = await connect({ servers: NATS_URL, timeout: 5000 });
  const deleted = [];
  try {
    const jsm = await nc.jetstreamManager();
    const want = prefix.replace(/[^A-Za-z0-9_-]/g, '_').toUpperCase();
    for await (const si of jsm.streams.list()) {
      const name = si.config.name;
      if (name.toUpperCase().startsWith(`${want}_`)) {
        await jsm.streams.delete(name);
        deleted.push(name);
      }
    }
  } finally {
    await nc.close();
  }
  return deleted;
}

/** Deletes Redis keys and JetStream streams of each prefix; logs, never throws. */
async function cleanup(prefixes) {
  for (const p of prefixes) {
    try {
      const keys = await deleteRedisKeys(p);
      const streams = await deleteStreams(p);
      log(`cleaned ${p}: ${keys} Redis keys, streams [${streams.join(', ')}]`);
    } catch (err) {
      log(`cleanup of ${p} failed: ${err.message}`);
    }
  }
}

async function machine() {
  const cpus = os.cpus();
  const out = {
    cpu: cpus[0] ? cpus[0].model : 'unknown',
    cores: cpus.length,
    memoryGiB: Math.round((os.totalmem() / 2 ** 30) * 10) / 10,
    os: `${os.type()} ${os.release()}`,
    node: process.version,
    redis: null,
    nats: null,
  };
  try {
    const r = redisClient();
    const info = await r.info('server');
    out.redis = (/redis_version:(\S+)/.exec(info) || [])[1] || null;
    r.disconnect();
  } catch (err) {
    throw new Error(`Redis is not reachable at ${REDIS_URL} (${err.message}); start redis-server or set REDIS_URL`, { cause: err });
  }
  try {
    const { connect } = deps.nats();
    const nc = await connect({ servers: NATS_URL, timeout: 3000 });
    out.nats = nc.info ? nc.info.version : null;
    out.jetstream = nc.info ? Boolean(nc.info.jetstream) : null;
    await nc.close();
  } catch (err) {
    throw new Error(`NATS is not reachable at ${NATS_URL} (${err.message}); start nats-server -js or set NATS_URL`, { cause: err });
  }
  return out;
}

module.exports = { REDIS_URL, NATS_URL, redisClient, deleteRedisKeys, deleteStreams, cleanup, machine };

/** Redis INFO commandstats as {command: {calls, usec}}. */
async function commandStats(client) {
  const text = await client.info('commandstats');
  const out = {};
  for (const m of text.matchAll(/^cmdstat_([^:]+):calls=(\d+),usec=(\d+)/gm)) out[m[1]] = { calls: Number(m[2]), usec: Number(m[3]) };
  return out;
}

/**
 * Redis commands per unit of work between start() and end(n): calls and server
 * µs of each command (the server is shared, so other clients' commands count too).
 */
async function measureRedis() {
  const client = redisClient();
  const before = await commandStats(client);
  return {
    async end(n) {
      const after = await commandStats(client);
      client.disconnect();
      const rows = [];
      for (const [cmd, a] of Object.entries(after)) {
        const b = before[cmd] || { calls: 0, usec: 0 };
        const calls = a.calls - b.calls;
        if (calls > 0) rows.push([cmd, { callsPer: Math.round((calls / n) * 100) / 100, usecPer: Math.round(((a.usec - b.usec) / n) * 10) / 10 }]);
      }
      rows.sort((x, y) => y[1].usecPer - x[1].usecPer);
      return Object.fromEntries(rows.filter(([cmd]) => cmd !== 'info').slice(0, 8));
    },
  };
}

module.exports.measureRedis = measureRedis;
