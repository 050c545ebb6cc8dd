import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';
import { NATS_URL, REDIS_URL, requireNats, requireRedis } from './services';

/** The built CLI; the test command builds it before jest runs. */
export const CLI_BIN = join(__dirname, '..', '..', 'packages', 'cli', 'bin', 'hookyard.js');

export function requireBuiltCli(): void {
  if (!existsSync(join(__dirname, '..', '..', 'packages', 'cli', 'dist', 'main.js'))) {
    throw new Error('the CLI is not built: run `pnpm build` first (`pnpm test` does it)');
  }
}

/** What a suite of spawned roles on the shared servers needs: Redis, NATS and the built CLI (fails, never skips, naming what is missing). */
export async function requirePlatform(): Promise<void> {
  await requireRedis();
  await requireNats();
  requireBuiltCli();
}

/** One `hookyard serve` process with its captured log lines. */
export class RoleProcess {
  readonly lines: string[] = [];
  url = '';
  private exited: Promise<number | null>;

  constructor(
    readonly name: string,
    readonly child: ChildProcess,
  ) {
    let buf = '';
    const onData = (chunk: Buffer) => {
      buf += chunk.toString('utf8');
      let i: number;
      while ((i = buf.indexOf('\n')) >= 0) {
        this.lines.push(buf.slice(0, i));
        buf = buf.slice(i + 1);
      }
    };
    child.stdout?.on('data', onData);
    child.stderr?.on('data', onData);
    this.exited = new Promise((resolve) => child.once('exit', (code) => resolve(code)));
  }

  /** Parsed JSON log records (non-JSON lines skipped). */
  logs(): Record<string, unknown>[] {
    const out: Record<string, unknown>[] = [];
    for (const l of this.lines) {
      if (!l.startsWith('{')) continue;
      try {
        out.push(JSON.parse(l) as Record<string, unknown>);
      } catch {
        /* a partial line */
      }
    }
    return out;
  }

  async waitListening(timeoutMs = 20_000): Promise<string> {
    const deadline = Date.now() + timeoutMs;
    while (Date.now() < deadline) {
      const rec = this.logs().find((r) => typeof r.url === 'string' && typeof r.msg === 'string' && r.msg.includes('listening'));
      if (rec) {
        this.url = String(rec.url);
        return this.url;
      }
      if (this.child.exitCode !== null) throw new Error(`${this.name} exited with ${this.child.exitCode}:\n${this.lines.join('\n')}`);
      await sleep(50);
    }
    throw new Error(`${this.name} did not start listening in ${timeoutMs} ms:\n${this.lines.join('\n')}`);
  }

  kill(signal: NodeJS.Signals = 'SIGTERM'): void {
    if (this.child.exitCode === null) this.child.kill(signal);
  }

  wait(): Promise<number | null> {
    return this.exited;
  }

  /**
   * Sends `signal` (default SIGTERM: the role drains) and waits for the exit;
   * a process still there after `graceMs` is SIGKILLed. Resolves to the exit code.
   */
  async stop(signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000): Promise<number | null> {
    this.kill(signal);
    let timer: NodeJS.Timeout | undefined;
    const late = new Promise<void>((resolve) => (timer = setTimeout(resolve, graceMs)));
    await Promise.race([this.exited, late]);
    clearTimeout(timer);
    this.kill('SIGKILL');
    return this.exited;
  }
}

/** Every role process started here, so that a test process that dies leaves none behind. */
const live = new Set<ChildProcess>();
process.once('exit', () => {
  for (const c of live) if (c.exitCode === null && c.signalCode === null) c.kill('SIGKILL');
});

/**
 * Spawns `hookyard serve --role <role>` with `env` as its whole environment
 * besides PATH (HOOKS_HTTP_PORT 0 and HOOKS_LOG_LEVEL info unless given), its
 * stdout and stderr collected line by line. `waitListening()` is its readiness.
 */
export function startRole(name: string, role: string, env: Record<string, string>): RoleProcess {
  const child = spawn(process.execPath, [CLI_BIN, 'serve', '--role', role], {
    env: { PATH: process.env.PATH ?? '', HOOKS_HTTP_PORT: '0', HOOKS_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  live.add(child);
  child.once('exit', () => live.delete(child));
  return new RoleProcess(name, child);
}

/**
 * The environment of a role on the shared Redis and NATS: the test's key and
 * stream prefix, one admin token, then `overrides` (which win).
 */
export function roleEnv(prefix: string, token: string, overrides: Record<string, string> = {}): Record<string, string> {
  return {
    HOOKS_REDIS_URL: REDIS_URL,
    HOOKS_NATS_URL: NATS_URL,
    HOOKS_KEY_PREFIX: prefix,
    HOOKS_NATS_PREFIX: prefix,
    HOOKS_API_TOKENS: `admin:${token}`,
    ...overrides,
  };
}

/** The platform as the e2e suites run it: one ingress, one scheduler, two executors (in this order). */
export const PLATFORM_ROLES: ReadonlyArray<readonly [name: string, role: string]> = [
  ['ingress', 'ingress'],
  ['scheduler', 'scheduler'],
  ['executor-1', 'executor'],
  ['executor-2', 'executor'],
];

/** startRole, then waits until it listens (its `url` is set); one that does not is killed, and the wait's error thrown. */
export async function startListening(name: string, role: string, env: Record<string, string>, timeoutMs?: number): Promise<RoleProcess> {
  const [proc] = await startRoles(env, [[name, role]], timeoutMs);
  return proc!;
}

/** Starts each `[name, role]` with the same env and waits until every one listens; if one does not, all are killed. */
export async function startRoles(
  env: Record<string, string>,
  roles: ReadonlyArray<readonly [name: string, role: string]>,
  timeoutMs?: number,
): Promise<RoleProcess[]> {
  const procs = roles.map(([name, role]) => startRole(name, role, env));
  try {
    await Promise.all(procs.map((p) => p.waitListening(timeoutMs)));
  } catch (err) {
    await stopRoles(procs, 'SIGKILL');
    throw err;
  }
  return procs;
}

/** Stops every process (see RoleProcess.stop), all at once. */
export async function stopRoles(procs: readonly (RoleProcess | undefined)[], signal: NodeJS.Signals = 'SIGTERM', graceMs = 10_000): Promise<void> {
  await Promise.all(procs.flatMap((p) => (p ? [p.stop(signal, graceMs)] : [])));
}

export function sleep(ms: number): Promise<void> {
  return new Promise((r) => setTimeout(r, ms));
}

/** Polls `check` until it returns a value (not undefined) or the time is up. */
export async function eventually<T>(check: () => Promise<T | undefined>, timeoutMs: number, what: string): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  let last: unknown;
  while (Date.now() < deadline) {
    try {
      const v = await check();
      if (v !== undefined) return v;
    } catch (err) {
      last = err;
    }
    await sleep(100);
  }
  throw new Error(`timed out after ${timeoutMs} ms waiting for ${what}${last ? `: ${last instanceof Error ? last.message : JSON.stringify(last)}` : ''}`);
}
