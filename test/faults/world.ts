/**
 * One fault world: its own Redis (AOF, appendfsync always) and NATS
 * (JetStream), the sink, and the roles as separate `hookyard serve`
 * processes: one ingress on a fixed port (a restarted ingress answers on the
 * same URL), two schedulers, two executors. Every role can be SIGKILLed,
 * frozen and started again; the servers restart on their port and data.
 */
import { mkdtempSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { randomBytes } from 'node:crypto';
import { requireBuiltCli, roleEnv, startRole, stopRoles, type RoleProcess } from '../support/processes';
import { LOOPBACK_NETS_ENV } from '../support/services';
import { Api } from '../e2e/api';
import { Sink } from './sink';
import { freePort, startNats, startRedis, type ServerProcess } from '../support/servers';
import { startNatsCluster, waitForJetStream, type NatsCluster } from '../support/clusters';

/** Long enough that a 2 s Redis outage ends while every lease still holds (renewed every third of it). */
export const LEASE_SECONDS = 6;
export const GITHUB_SECRET = `gh-${randomBytes(12).toString('hex')}`;

export class World {
  readonly dir = mkdtempSync(join(tmpdir(), 'hookyard-faults-'));
  readonly token = randomBytes(24).toString('hex');
  redis!: ServerProcess;
  nats!: ServerProcess;
  sink!: Sink;
  api!: Api;
  ingressPort = 0;
  readonly roles = new Map<string, RoleProcess>();
  /** Every role process ever started, for the logs and the final kill. */
  readonly all: RoleProcess[] = [];
  private env: Record<string, string> = {};

  /** Set with `natsCluster`: three routed nodes, streams at three replicas (then `nats` is unset). */
  natsCluster: NatsCluster | undefined;

  constructor(
    private readonly rand: () => number,
    private readonly opts: { natsCluster?: boolean; env?: Record<string, string> } = {},
  ) {}

  async start(): Promise<void> {
    requireBuiltCli();
    this.redis = await startRedis(join(this.dir, 'redis'));
    let natsUrl: string;
    if (this.opts.natsCluster) {
      this.natsCluster = await startNatsCluster();
      await waitForJetStream(this.natsCluster.url);
      natsUrl = this.natsCluster.url;
    } else {
      this.nats = await startNats(join(this.dir, 'nats'));
      natsUrl = `nats://127.0.0.1:${this.nats.port}`;
    }
    this.sink = new Sink(this.rand);
    await this.sink.start();
    this.ingressPort = await freePort();
    // The world's own servers, so its one prefix is all theirs.
    this.env = roleEnv('faults', this.token, {
      HOOKS_REDIS_URL: `redis://127.0.0.1:${this.redis.port}`,
      HOOKS_NATS_URL: natsUrl,
      HOOKS_NATS_REPLICAS: this.opts.natsCluster ? '3' : '1',
      HOOKS_RUN_LEASE_SECONDS: String(LEASE_SECONDS),
      HOOKS_RUN_SWEEP_SECONDS: '0.25',
      HOOKS_RUN_DISPATCH_GRACE_SECONDS: '2',
      HOOKS_RUN_RETRY_BASE_SECONDS: '0.2',
      HOOKS_RUN_RETRY_CAP_SECONDS: '2',
      HOOKS_RUN_MAX_ATTEMPTS: '8',
      HOOKS_RUN_SHUTDOWN_GRACE_SECONDS: '2',
      HOOKS_MAX_WORKERS: '32',
      HOOKS_DOOR_RATE: '0',
      HOOKS_OUTBOUND_ALLOW_NETS: LOOPBACK_NETS_ENV, // the tool servers these tests start listen on loopback
      HOOKS_LOG_LEVEL: 'info',
      HOOKS_SECRET_FAULTS_GITHUB_SECRET: GITHUB_SECRET,
      ...this.opts.env,
    });
    // The ingress first: it creates the streams, which on a fresh NATS cluster (a
    // replicated stream placed while five roles ask at once) can outlast a request.
    await this.startRole('ingress');
    const rest = await Promise.allSettled(['scheduler-1', 'scheduler-2', 'executor-1', 'executor-2'].map((n) => this.startRole(n)));
    for (const r of rest) if (r.status === 'rejected') throw r.reason;
    this.api = new Api(`http://127.0.0.1:${this.ingressPort}`, this.token);
    for (const tool of ['once', 'resume']) {
      await this.api.ok('POST', '/api/tools', {
        name: `sink_${tool}`,
        endpoint: `${this.sink.url}/${tool}`,
        method: 'POST',
        timeout_ms: 10_000,
        headers: {},
        body_properties: {},
        protocol: 'langserve-direct',
        crash_resumable: tool === 'resume',
      });
    }
  }

  /** Starts (or starts again) the role named `name` (its role is the name's stem). */
  async startRole(name: string): Promise<RoleProcess> {
    const role = name.replace(/-\d+$/, '');
    const env = role === 'ingress' ? { ...this.env, HOOKS_HTTP_PORT: String(this.ingressPort) } : this.env;
    const p = startRole(name, role, env);
    this.roles.set(name, p);
    this.all.push(p);
    await p.waitListening(30_000);
    return p;
  }

  role(name: string): RoleProcess {
    const p = this.roles.get(name);
    if (!p) throw new Error(`no role ${name}`);
    return p;
  }

  async killRole(name: string, signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const p = this.role(name);
    p.kill(signal);
    await p.wait();
  }

  /** A topic with two hooks: one on the non-resumable tool, one on the crash-resumable one. */
  async topic(fault: string, verified: boolean): Promise<void> {
    for (const tool of ['once', 'resume']) {
      await this.api.ok('POST', '/api/hooks', {
        name: `${fault}-${tool}`,
        topic: fault,
        tool: `sink_${tool}`,
        start_expr: { content: '{n: .n, f: .fault}' },
      });
    }
    if (verified) await this.api.ok('PUT', `/api/hooks/topics/${fault}/verifier`, { kind: 'github', secrets: ['env:HOOKS_SECRET_FAULTS_GITHUB_SECRET'] });
  }

  async stop(): Promise<void> {
    for (const p of this.all) p.kill('SIGCONT');
    await stopRoles(this.all, 'SIGKILL');
    await this.sink?.close();
    await this.redis?.kill();
    await this.nats?.kill();
    await this.natsCluster?.stop();
    rmSync(this.dir, { recursive: true, force: true });
  }
}

/** A small seeded PRNG (mulberry32), so a run's fault moments can be replayed with its seed. */
export function prng(seed: number): () => number {
  let a = seed >>> 0;
  return () => {
    a = (a + 0x6d2b79f5) >>> 0;
    let t = a;
    t = Math.imul(t ^ (t >>> 15), t | 1);
    t ^= t + Math.imul(t ^ (t >>> 7), t | 61);
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}
