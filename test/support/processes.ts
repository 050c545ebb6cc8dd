import { spawn, type ChildProcess } from 'node:child_process';
import { existsSync } from 'node:fs';
import { join } from 'node:path';

/** The built CLI; the test command builds it before jest runs. */
export const CLI_BIN = join(__dirname, '..', '..', 'packages', 'cli', 'bin', 'hookyard.js');

export function requireBuiltCli(): void {
  if (!existsSync(join(__dirname, '..', '..', 'packages', 'cli', 'dist', 'main.js'))) {
    throw new Error('the CLI is not built: run `pnpm build` first (`pnpm test` does it)');
  }
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
}

export function startRole(name: string, role: string, env: Record<string, string>): RoleProcess {
  const child = spawn(process.execPath, [CLI_BIN, 'serve', '--role', role], {
    env: { PATH: process.env.PATH ?? '', HOOKS_HTTP_PORT: '0', HOOKS_LOG_LEVEL: 'info', ...env },
    stdio: ['ignore', 'pipe', 'pipe'],
  });
  return new RoleProcess(name, child);
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
