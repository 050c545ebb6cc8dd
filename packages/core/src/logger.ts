import pino from 'pino';
import { traceLogFields, tracingOn } from './tracing';

/** One log call: fields and a message, or a message alone (pino's call shapes, so a pino logger is one). */
export interface LogFn {
  (fields: Record<string, unknown>, msg?: string): void;
  (msg: string): void;
}

/**
 * The structured logger every package takes. Only this file knows it is pino:
 * no other package imports pino or its types, so what a logger must do is
 * this list, and a test can hand in anything that does it.
 */
export interface Logger {
  /** The lowest level written (`debug`, `info`, `warn`, `error`, `silent`); a live settings reload sets it. */
  level: string;
  debug: LogFn;
  info: LogFn;
  warn: LogFn;
  error: LogFn;
  /** A logger whose every line also carries `bindings`. */
  child(bindings: Record<string, unknown>): Logger;
}

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
