import { HookyardError, quote, type ErrorKind } from '@hookyard/core';
import { status as Status } from '@grpc/grpc-js';

/** The Hookyard kind a gRPC status code means for the caller: the one place that maps them. */
export function kindOfGrpcStatus(code: Status): ErrorKind {
  switch (code) {
    case Status.UNAVAILABLE:
      return 'unavailable';
    case Status.DEADLINE_EXCEEDED:
      return 'timeout';
    case Status.INVALID_ARGUMENT:
    case Status.FAILED_PRECONDITION:
    case Status.OUT_OF_RANGE:
      return 'bad_input';
    case Status.NOT_FOUND:
      return 'not_found';
    case Status.ALREADY_EXISTS:
    case Status.ABORTED:
      return 'conflict';
    case Status.PERMISSION_DENIED:
    case Status.UNAUTHENTICATED:
      return 'unauthorized';
    case Status.CANCELLED:
      return 'cancelled';
    default:
      return 'internal';
  }
}

/** The error for a failed call: names the tool, the status by name and number, quotes the details. */
export function grpcStatusError(what: string, err: unknown): HookyardError {
  const e = err as { code?: unknown; details?: unknown; message?: unknown } | null;
  const code = typeof e?.code === 'number' ? e.code : Status.UNKNOWN;
  const details = typeof e?.details === 'string' ? e.details : typeof e?.message === 'string' ? e.message : String(err);
  const name = Status[code] ?? 'UNKNOWN';
  return new HookyardError(kindOfGrpcStatus(code), `${what} failed with gRPC status ${name} (${code}): ${quote(details)}`, { cause: err });
}
