import pino from 'pino';

export type Logger = pino.Logger;

/** Structured JSON logs to stdout. `role` and `instance` are on every line. */
export function createLogger(opts: { level?: string; role?: string; instance?: string; destination?: pino.DestinationStream } = {}): Logger {
  const base: Record<string, unknown> = { service: 'hookyard' };
  if (opts.role) base.role = opts.role;
  if (opts.instance) base.instance = opts.instance;
  const options: pino.LoggerOptions = { level: opts.level ?? 'info', base, timestamp: pino.stdTimeFunctions.isoTime };
  return opts.destination ? pino(options, opts.destination) : pino(options);
}

/** A logger that drops everything, for tests. */
export function silentLogger(): Logger {
  return pino({ level: 'silent' });
}
