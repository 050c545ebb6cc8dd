import { isUtf8 } from 'node:buffer';
import busboy from 'busboy';
import { collectPairs, type Fields } from './fields';

export type MultipartResult = { ok: true; fields: Fields } | { ok: false; reason: string; file: boolean };

/**
 * Reads the text fields of a multipart/form-data body already held in memory.
 * A part carrying a file (a `filename` in its Content-Disposition) refuses the
 * whole form: a kept run carries text fields only. A form busboy cannot read is
 * refused quoting busboy's complaint. Fields must be UTF-8: busboy would
 * replace bad bytes with U+FFFD (or drop a value in a charset it cannot
 * decode), so both are refused rather than kept altered.
 */
export function parseMultipart(contentType: string, rawBody: Buffer, maxBytes: number): Promise<MultipartResult> {
  if (!isUtf8(rawBody)) return Promise.resolve({ ok: false, reason: 'multipart body is not valid UTF-8', file: false });
  return new Promise((resolve) => {
    let settled = false;
    const done = (result: MultipartResult) => {
      if (!settled) {
        settled = true;
        resolve(result);
      }
    };
    let parser: busboy.Busboy;
    try {
      parser = busboy({
        headers: { 'content-type': contentType },
        limits: { fieldSize: maxBytes, fields: 1000, parts: 1000 },
      });
    } catch (err) {
      done({ ok: false, reason: (err as Error).message, file: false });
      return;
    }
    const pairs: [string, string][] = [];
    parser.on('field', (name, value: string | undefined) => {
      if (typeof value !== 'string') {
        done({ ok: false, reason: `multipart part '${name}' is in a charset that cannot be decoded; send UTF-8`, file: false });
      } else pairs.push([name, value]);
    });
    parser.on('file', (name, stream, info) => {
      stream.resume();
      done({ ok: false, reason: `multipart part '${name}' carries a file (${JSON.stringify(info.filename)}); only text fields are accepted`, file: true });
    });
    parser.on('partsLimit', () => done({ ok: false, reason: 'multipart form has more than 1000 parts', file: false }));
    parser.on('fieldsLimit', () => done({ ok: false, reason: 'multipart form has more than 1000 fields', file: false }));
    parser.on('error', (err: Error) => done({ ok: false, reason: err.message, file: false }));
    parser.on('close', () => done({ ok: true, fields: collectPairs(pairs) }));
    parser.end(rawBody);
  });
}
