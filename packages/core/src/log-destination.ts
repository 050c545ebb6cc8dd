import { write as fsWrite } from 'node:fs';

/**
 * Where log lines go without ever blocking the event loop. pino's default
 * destination writes synchronously and retries a full pipe (EAGAIN) or a
 * broken one (EPIPE) on the main thread, so a log shipper that stalls or a
 * parent that exited freezes the whole process (no /healthz, no lease
 * renewals, no SIGTERM). Here lines wait in a bounded buffer and are written
 * by libuv's thread pool; a full buffer drops the line and counts it; EPIPE
 * (the reader is gone for good) stops writing altogether, every later line
 * dropped and counted.
 */
export interface LogDestination {
  write(line: string): boolean;
  /** Lines dropped so far (buffer full, or the reader gone). */
  dropped(): number;
  /** True once the stream answered EPIPE (or another hard error): nothing is written any more. */
  broken(): boolean;
}

export interface LogDestinationOptions {
  /** File descriptor to write (default 1, stdout). */
  fd?: number;
  /** Most bytes held while the reader is slow (default 1 MiB). */
  maxBufferedBytes?: number;
  /** Wait before retrying a full pipe, ms (default 50). */
  retryMs?: number;
}

export function createLogDestination(options: LogDestinationOptions = {}): LogDestination {
  const fd = options.fd ?? 1;
  const cap = options.maxBufferedBytes ?? 1024 * 1024;
  const retryMs = options.retryMs ?? 50;
  const queue: Buffer[] = [];
  let buffered = 0;
  let dropped = 0;
  let broken = false;
  let writing = false;

  const flush = (): void => {
    if (writing || broken || queue.length === 0) return;
    writing = true;
    const chunk = queue.length === 1 ? queue[0]! : Buffer.concat(queue);
    queue.length = 0;
    fsWrite(fd, chunk, 0, chunk.length, null, (err, written) => {
      writing = false;
      if (err) {
        const code = err.code;
        if (code === 'EAGAIN' || code === 'EWOULDBLOCK' || code === 'EINTR') {
          queue.unshift(chunk);
          setTimeout(flush, retryMs).unref();
          return;
        }
        // EPIPE, EBADF, ...: the reader is gone; what was held is lost with it.
        broken = true;
        dropped += countLines(chunk) + queue.reduce((n, b) => n + countLines(b), 0);
        queue.length = 0;
        buffered = 0;
        return;
      }
      buffered -= written;
      if (written < chunk.length) queue.unshift(chunk.subarray(written));
      flush();
    });
  };

  return {
    write(line: string): boolean {
      if (broken) {
        dropped++;
        return true;
      }
      const bytes = Buffer.byteLength(line);
      if (buffered + bytes > cap) {
        dropped++;
        return true;
      }
      queue.push(Buffer.from(line, 'utf8'));
      buffered += bytes;
      flush();
      return true;
    },
    dropped: () => dropped,
    broken: () => broken,
  };
}

function countLines(b: Buffer): number {
  let n = 0;
  for (let i = b.indexOf(10); i >= 0; i = b.indexOf(10, i + 1)) n++;
  return Math.max(n, 1);
}
