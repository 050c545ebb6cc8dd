import { CommanderError } from 'commander';
import { SettingsError } from '@hookyard/core';
import { CliError, EXIT, oneLine } from './client';

/** What `--json` prints on stdout for a failure: the shape of the server's own error bodies. */
export interface ErrorDocument {
  error: { kind: string; message: string; status?: number; details?: string[] };
}

const KIND_OF_EXIT: Record<number, string> = { [EXIT.refused]: 'refused', [EXIT.usage]: 'usage', [EXIT.unreachable]: 'unreachable' };

/**
 * A failure as one JSON document, or null when it is no failure (--help,
 * --version). A server refusal keeps the server's kind, message and status;
 * the CLI's own failures are `usage`, `unreachable` or `refused` as their exit code says.
 */
export function errorDocument(err: unknown): ErrorDocument | null {
  if (err instanceof CommanderError) {
    if (err.exitCode === 0) return null;
    return { error: { kind: 'usage', message: oneLine(err.message.replace(/^error: /, '')) } };
  }
  if (err instanceof CliError) {
    const details = err.details.length ? { details: [...err.details] } : {};
    if (err.wire) return { error: { kind: err.wire.kind, message: err.wire.message, status: err.wire.status, ...details } };
    return { error: { kind: KIND_OF_EXIT[err.exitCode] ?? 'error', message: oneLine(err.message), ...details } };
  }
  if (err instanceof SettingsError) return { error: { kind: 'usage', message: `bad setting ${oneLine(err.message)}` } };
  return { error: { kind: 'error', message: oneLine(err instanceof Error ? err.message : String(err)) } };
}

/** Whether the command line asks for machine output (`--json` before any `--`). */
export function wantsJson(argv: readonly string[]): boolean {
  const end = argv.indexOf('--');
  return (end < 0 ? argv : argv.slice(0, end)).includes('--json');
}

/** Under `--json`, the failure as one JSON document on stdout (the one-line stderr report stays). */
export function printErrorJson(err: unknown): void {
  const doc = errorDocument(err);
  if (doc) process.stdout.write(`${JSON.stringify(doc)}\n`);
}
