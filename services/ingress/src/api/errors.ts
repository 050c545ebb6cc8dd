import type { NextFunction, Request, Response } from 'express';
import { HookyardError, badInput, httpStatusOf, notFound, type Logger } from '@hookyard/core';
import { SECURITY_HEADERS } from '../http/headers';

/** Sets the headers every answer carries; registered first, after the door. */
export function securityHeaders(_req: Request, res: Response, next: NextFunction): void {
  res.set(SECURITY_HEADERS);
  next();
}

/**
 * Unknown routes: a JSON 404 (through the error handler, so the body has the
 * same shape) quoting the path as the caller sent it, `/api` prefix and
 * percent-escapes included (`req.path` inside the /api router has lost the
 * prefix), without the query.
 */
export function unknownRoute(req: Request, _res: Response, next: NextFunction): void {
  const sent = req.originalUrl.split('?')[0]!;
  next(notFound(`no route ${req.method} ${sent}: the routes are listed in GET /openapi.json`));
}

/** express.json() failures carry a `type`; they are the client's fault, so bad_input. */
function fromBodyParser(err: unknown): HookyardError | undefined {
  const e = err as { type?: unknown; message?: unknown; limit?: unknown; status?: unknown };
  if (e.type === 'entity.parse.failed') return badInput(`request body is not valid JSON: ${String(e.message)}`);
  if (e.type === 'entity.too.large') return badInput(`request body is larger than ${String(e.limit)} bytes (HOOKS_API_BODY_MAX_BYTES)`);
  if (e.type === 'encoding.unsupported' || e.type === 'charset.unsupported') return badInput(String(e.message));
  if (typeof e.type === 'string' && typeof e.status === 'number' && e.status >= 400 && e.status < 500) return badInput(String(e.message));
  return undefined;
}

/**
 * The one error middleware: a HookyardError answers `httpStatusOf(kind)` with
 * `{"error": {kind, message, details?}}`; anything else is a logged 500 whose
 * body says nothing about the cause.
 */
export function errorHandler(logger: Logger) {
  return (err: unknown, req: Request, res: Response, _next: NextFunction): void => {
    const known = err instanceof HookyardError ? err : fromBodyParser(err);
    // A body past the cap is the client's bad input, answered with the status that says which.
    const tooLarge = (err as { type?: unknown }).type === 'entity.too.large';
    const status = tooLarge ? 413 : known ? httpStatusOf(known.kind) : 500;
    if (!known || status >= 500) logger.error({ err, method: req.method, path: req.path }, 'management request failed');
    if (res.headersSent) return;
    const body = known
      ? { error: { kind: known.kind, message: known.message, ...(known.details.length ? { details: known.details } : {}) } }
      : { error: { kind: 'internal', message: 'internal error' } };
    res.status(status).set(SECURITY_HEADERS).json(body);
  };
}
