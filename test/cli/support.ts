import { spawn } from 'node:child_process';
import { CLI_BIN } from '../support/processes';
import { freePort } from '../support/servers';

/** What one run of the built CLI did. */
export interface CliResult {
  code: number | null;
  stdout: string;
  stderr: string;
}

export interface CliRunOptions {
  /** The whole environment besides PATH: nothing leaks in from the caller's HOOKYARD_* or HOOKS_*. */
  env?: Record<string, string>;
  /** Written to stdin, then closed. */
  input?: string;
  /** The process is killed past this (a `serve` that should have refused but started). */
  killAfterMs?: number;
}

/** Runs `node packages/cli/bin/hookyard.js <args>` and collects its exit code and output. */
export function runCli(args: readonly string[], opts: CliRunOptions = {}): Promise<CliResult> {
  return new Promise((resolve, reject) => {
    const child = spawn(process.execPath, [CLI_BIN, ...args], {
      env: { PATH: process.env.PATH ?? '', ...opts.env },
      stdio: ['pipe', 'pipe', 'pipe'],
    });
    let stdout = '';
    let stderr = '';
    child.stdout.on('data', (c: Buffer) => (stdout += c.toString('utf8')));
    child.stderr.on('data', (c: Buffer) => (stderr += c.toString('utf8')));
    const timer = setTimeout(() => child.kill('SIGKILL'), opts.killAfterMs ?? 20_000);
    child.once('error', (err) => {
      clearTimeout(timer);
      reject(err);
    });
    child.once('close', (code) => {
      clearTimeout(timer);
      resolve({ code, stdout, stderr });
    });
    child.stdin.end(opts.input ?? '');
  });
}

/** Parses stdout as one JSON document; the failure message shows what came out. */
export function parseStdout<T = Record<string, unknown>>(r: CliResult): T {
  try {
    return JSON.parse(r.stdout) as T;
  } catch {
    throw new Error(`stdout is not one JSON document (exit ${r.code}):\n${r.stdout}\nstderr:\n${r.stderr}`);
  }
}

/** The non-empty lines of a stream. */
export function lines(s: string): string[] {
  return s.split('\n').filter((l) => l.length > 0);
}

/** A loopback port nothing listens on (taken, then released). */
export const closedPort: () => Promise<number> = freePort;

/** Runs `fn` over `items`, at most `width` at a time (two shared cores: keep it small). */
export async function inBatches<T, R>(items: readonly T[], width: number, fn: (item: T) => Promise<R>): Promise<R[]> {
  const out: R[] = [];
  for (let i = 0; i < items.length; i += width) out.push(...(await Promise.all(items.slice(i, i + width).map(fn))));
  return out;
}
