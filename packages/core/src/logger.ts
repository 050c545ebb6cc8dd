import pino from 'pino';
import { traceLogFields, tracingOn } from './tracing';

export type Logger = pino.Logger;

/**
 * Structured JSON logs to stdout. `role` and `instance` are on every line;
 * with `traceIds` (default: whether tracing is on when the logger is made) a
 * line logged inside a span also carries `trace_id` and `span_id`.
 */
export function createLogger(
  opts: { level?: string; role?: string; instance?: string; destination?: pino.DestinationStream; traceIds?: boolean } = {},
): Logger {
  const base: Record<string, unknown> = { service: 'hookyard' };
  if (opts.role) base.role = opts.role;
  if (opts.instance) base.instance = opts.instance;
  const options: pino.LoggerOptions = { level: opts.level ?? 'info', base, timestamp: pino.stdTimeFunctions.isoTime };
  // Only when tracing is on: with it off a log line costs no context lookup.
  if (opts.traceIds ?? tracingOn()) options.mixin = traceLogFields;
  return opts.destination ? pino(options, opts.destination) : pino(options);
}

/** A logger that drops everything, for tests. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
