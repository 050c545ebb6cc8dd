/**
 * Throwaway redis-server and nats-server processes for the fault and cluster
 * tests: random loopback ports, data in a temp dir, restartable on the same
 * port and data (Redis from its AOF, JetStream from its store dir).
 */
import { spawn, type ChildProcess } from 'node:child_process';
import { accessSync, constants, mkdirSync } from 'node:fs';
import { createServer, type AddressInfo } from 'node:net';
import { delimiter, join } from 'node:path';
import { sleep } from './processes';
import { tcpOpen } from './services';

/** Finds a binary on PATH, then in the sbin directories Debian installs servers to. */
export function findBinary(name: string): string {
  const dirs = [...(process.env.PATH ?? '').split(delimiter), '/usr/sbin', '/usr/local/sbin', '/sbin'];
  for (const d of dirs) {
    if (!d) continue;
    const p = join(d, name);
    try {
      accessSync(p, constants.X_OK);
      return p;
    } catch {
      /* not here */
    }
  }
  throw new Error(`${name} is not installed (apt-get install -y redis-server nats-server); the fault and cluster tests start their own`);
}

/** A free TCP port on 127.0.0.1 (bound, then released). */
export async function freePort(): Promise<number> {
  const s = createServer();
  await new Promise<void>((r) => s.listen(0, '127.0.0.1', () => r()));
  const port = (s.address() as AddressInfo).port;
  await new Promise<void>((r) => s.close(() => r()));
  return port;
}

/** Whether something listens on 127.0.0.1:port. */
export function listening(port: number): Promise<boolean> {
  return tcpOpen('127.0.0.1', port);
}

/** Every server process any test here started, so an exit path can kill them all. */
const started = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of started) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/** One server process that can be killed, stopped and started again with the same arguments. */
export class ServerProcess {
  child: ChildProcess | null = null;
  readonly log: string[] = [];

  constructor(
    readonly name: string,
    readonly bin: string,
    readonly args: string[],
    readonly port: number,
  ) {}

  async start(timeoutMs = 20_000): Promise<void> {
    const child = spawn(this.bin, this.args, { stdio: ['ignore', 'pipe', 'pipe'] });
    this.child = child;
    started.add(child);
    const keep = (b: Buffer) => {
      for (const l of b.toString('utf8').split('\n')) if (l) this.log.push(l);
      if (this.log.length > 2000) this.log.splice(0, this.log.length - 2000);
    };
    child.stdout?.on('data', keep);
    child.stderr?.on('data', keep);
    child.once('exit', () => started.delete(child));
    const deadline = Date.now() + timeoutMs;
    while (!(await listening(this.port))) {
      if (child.exitCode !== null) throw new Error(`${this.name} exited with ${child.exitCode}:\n${this.log.slice(-30).join('\n')}`);
      if (Date.now() > deadline) throw new Error(`${this.name} did not listen on ${this.port} in ${timeoutMs} ms:\n${this.log.slice(-30).join('\n')}`);
      await sleep(50);
    }
  }

  /** Sends `signal` and, for a deadly one, waits until the process is gone. */
  async kill(signal: NodeJS.Signals = 'SIGKILL'): Promise<void> {
    const c = this.child;
    if (!c || c.exitCode !== null || c.signalCode !== null) return;
    const gone = new Promise<void>((r) => c.once('exit', () => r()));
    c.kill(signal);
    if (signal === 'SIGKILL' || signal === 'SIGTERM' || signal === 'SIGINT') {
      const t = setTimeout(() => c.kill('SIGKILL'), 15_000);
      await gone;
      clearTimeout(t);
    }
  }

  get alive(): boolean {
    return !!this.child && this.child.exitCode === null && this.child.signalCode === null;
  }
}

/**
 * redis-server, by default with AOF and `appendfsync always` (a SIGKILL loses
 * no acknowledged write); `aof: false` keeps nothing on disk.
 */
export async function startRedis(dir: string, opts: { aof?: boolean; extra?: string[] } = {}): Promise<ServerProcess> {
  mkdirSync(dir, { recursive: true });
  const port = await freePort();
  const persistence = opts.aof === false ? ['--appendonly', 'no'] : ['--appendonly', 'yes', '--appendfsync', 'always'];
  const args = [
    '--port',
    String(port),
    '--bind',
    '127.0.0.1',
    '--dir',
    dir,
    '--save',
    '',
    ...persistence,
    '--protected-mode',
    'no',
    '--loglevel',
    'warning',
    ...(opts.extra ?? []),
  ];
  const s = new ServerProcess(`redis:${port}`, findBinary('redis-server'), args, port);
  await s.start();
  return s;
}

/** nats-server with JetStream, its store in `dir`. */
export async function startNats(dir: string, extra: string[] = [], port?: number): Promise<ServerProcess> {
  mkdirSync(dir, { recursive: true });
  const p = port ?? (await freePort());
  const s = new ServerProcess(`nats:${p}`, findBinary('nats-server'), ['-a', '127.0.0.1', '-p', String(p), '-js', '-sd', dir, ...extra], p);
  await s.start();
  return s;
}
