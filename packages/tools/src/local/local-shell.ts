import { execFile } from 'node:child_process';
import { realpath } from 'node:fs/promises';
import { badInput, HookyardError, notFound, timeoutError, unauthorized } from '@hookyard/core';
import type { LocalTool } from './local-repo';

export interface LocalShellOptions {
  /** Working directory of every command (the local_fs root). */
  root: string;
  /** Exact command names (or paths) that may run; nothing else does. */
  allow: readonly string[];
  /** Time bound of one command when the call context carries none (`ctx.timeoutMs`, the live tool timeout); it is killed (SIGKILL) past it. */
  timeoutMs: number;
  /** Bound on stdout and on stderr, each, in bytes (default 256 KiB). */
  maxOutputBytes?: number;
}

const SCHEMA = {
  type: 'object',
  properties: {
    command: { type: 'string', description: 'A command on the allowlist, run without a shell.' },
    args: { type: 'array', items: { type: 'string' }, description: 'Arguments, passed as they are (no expansion, no interpolation).' },
  },
  required: ['command'],
  additionalProperties: false,
} as const;

/**
 * `local_shell`: runs one allowed command as an argument vector through
 * execFile — no shell, so `;`, `|`, `$(…)` and backticks in arguments are
 * plain bytes. The environment is reduced to PATH and LANG so the
 * process's secrets are not handed to the command.
 */
export function localShellTool(options: LocalShellOptions): LocalTool {
  const allow = new Set(options.allow);
  const maxOutput = options.maxOutputBytes ?? 256 * 1024;

  return {
    info: {
      name: 'local_shell',
      description: `Runs one allowed command (${[...allow].join(', ') || 'none'}) with arguments, without a shell, in the configured root.`,
      parameters: SCHEMA,
      provider: 'local',
    },
    async run(args, ctx) {
      const { command } = args;
      if (typeof command !== 'string' || command === '') throw badInput(`local_shell: command must be a non-empty string, got ${JSON.stringify(command)}`);
      if (!allow.has(command)) throw unauthorized(`local_shell: command ${JSON.stringify(command)} is not on the allowlist`);
      const argv = args.args ?? [];
      if (!Array.isArray(argv) || argv.some((a) => typeof a !== 'string')) {
        throw badInput(`local_shell: args must be a list of strings, got ${JSON.stringify(args.args)}`);
      }
      const cwd = await realpath(options.root);
      const timeoutMs = ctx.timeoutMs ?? options.timeoutMs;
      return new Promise((resolve, reject) => {
        execFile(
          command,
          argv as string[],
          {
            cwd,
            shell: false,
            timeout: timeoutMs,
            killSignal: 'SIGKILL',
            maxBuffer: maxOutput,
            encoding: 'utf8',
            env: { PATH: process.env.PATH ?? '/usr/bin:/bin', LANG: 'C.UTF-8' },
            signal: ctx.signal,
            windowsHide: true,
          },
          (err, stdout, stderr) => {
            if (!err) return resolve({ exit_code: 0, stdout, stderr, truncated: false });
            const e = err as Omit<NodeJS.ErrnoException, 'code'> & { code?: string | number; killed?: boolean; signal?: string };
            if (e.code === 'ENOENT') return reject(notFound(`local_shell: command ${JSON.stringify(command)} was not found`));
            if (e.code === 'ERR_CHILD_PROCESS_STDIO_MAXBUFFER') {
              return resolve({ exit_code: null, stdout, stderr, truncated: true });
            }
            if (e.name === 'AbortError') return reject(new HookyardError('cancelled', `local_shell: ${command} was aborted`));
            if (e.killed && e.signal === 'SIGKILL') return reject(timeoutError(`local_shell: ${command} ran past ${timeoutMs} ms and was killed`));
            if (typeof e.code === 'number') {
              return reject(badInput(`local_shell: ${command} exited ${e.code}: ${JSON.stringify(String(stderr).slice(0, 500))}`));
            }
            return reject(new HookyardError('internal', `local_shell: ${command} failed: ${e.message}`));
          },
        );
      });
    },
  };
}
