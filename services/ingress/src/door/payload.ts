import { isUtf8 } from 'node:buffer';
import { exceedsJsonDepth, isJsonObjectText, JSON_MAX_DEPTH } from './json-depth';
import { isEmpty, parseQuery, type Fields } from './fields';
import { parseMultipart } from './multipart';

export interface PayloadInput {
  /** The Content-Type header as sent (may be absent). */
  contentType: string | undefined;
  rawBody: Buffer;
  /** The raw query string, without `?`. */
  query: string;
  /** Cap on one multipart field (the body is already capped; this bounds busboy). */
  maxFieldBytes?: number;
  /** Also return the body's JSON text as `json` when it is exactly the payload (see ParseResult). */
  keepJsonText?: boolean;
}

export type Payload = Record<string, unknown>;

/**
 * `json` is set when the payload is exactly the body's JSON text (a JSON object
 * body and no query parameters to merge): the store keeps those bytes instead
 * of serialising the parsed object again. It parses to a value equal to `payload`.
 */
export type ParseResult = { ok: true; payload: Payload; json?: string } | { ok: false; status: 400; body: { status: 'rejected'; error: string } };

/**
 * Turns a delivery's raw bytes into the payload a run keeps. Any content type
 * is accepted:
 *
 * - JSON object (`application/json`, `*+json`) -> the object, query params merged in;
 * - other JSON (array, string, number, boolean, null) -> `{body: value}`;
 * - `application/x-www-form-urlencoded`, `multipart/form-data` -> the fields
 *   (a repeated name becomes an array); a multipart part carrying a file is refused;
 * - `text/*`, `application/xml`, `*+xml` -> `{raw_body: text}` (XML is only text:
 *   no entity is ever expanded);
 * - anything else, including no Content-Type and text in a charset we do not
 *   decode -> `{raw_body_base64}`, so no byte is lost;
 * - an empty body -> `{}`.
 *
 * Query parameters are merged into every payload object, and on a clash the
 * BODY WINS: the body is what a verifier signs, the query string is not, so an
 * unsigned query must never overwrite a signed field.
 *
 * Refusals (400): a body that does not parse as its declared type (quoting the
 * parser), invalid UTF-8 in JSON or text, JSON nested deeper than 64.
 * Async only because busboy is a stream; every other branch settles at once.
 */
export async function parsePayload(input: PayloadInput): Promise<ParseResult> {
  const query = parseQuery(input.query);
  if (query === undefined) return rejected('query string is not valid UTF-8 once percent-decoded');
  const { rawBody } = input;
  if (rawBody.length === 0) return accepted(query, {});
  const { mediaType, charset } = splitContentType(input.contentType);

  if (mediaType === 'application/json' || mediaType.endsWith('+json')) {
    if (charset !== undefined && !UTF8_NAMES.has(charset)) return rejected(`JSON must be UTF-8, got charset ${JSON.stringify(charset)}`);
    const text = utf8(rawBody);
    if (text === undefined) return rejected('body is not valid UTF-8');
    // The common case, a JSON object kept as its text: one validating scan
    // (exactly what JSON.parse accepts, within the depth cap) instead of
    // building an object nobody reads; it is parsed only if someone asks.
    if (input.keepJsonText && isEmpty(query) && isJsonObjectText(text)) return keptText(text);
    if (exceedsJsonDepth(text)) return rejected(`JSON nests deeper than ${JSON_MAX_DEPTH} levels`);
    let value: unknown;
    try {
      value = JSON.parse(text);
    } catch (err) {
      return rejected(`body is not valid JSON: ${(err as Error).message}`);
    }
    if (value !== null && typeof value === 'object' && !Array.isArray(value)) {
      // Validated (UTF-8, depth, JSON.parse) and an object: the text itself is the payload's JSON.
      if (input.keepJsonText && isEmpty(query)) return { ok: true, payload: value as Payload, json: text };
      return accepted(query, value as Payload);
    }
    return accepted(query, { body: value });
  }

  if (mediaType === 'application/x-www-form-urlencoded') {
    const text = utf8(rawBody);
    if (text === undefined) return rejected('body is not valid UTF-8');
    const form = parseQuery(text);
    if (form === undefined) return rejected('form is not valid UTF-8 once percent-decoded');
    return accepted(query, form);
  }

  if (mediaType === 'multipart/form-data') {
    const form = await parseMultipart(input.contentType ?? '', rawBody, input.maxFieldBytes ?? rawBody.length);
    if (!form.ok) return rejected(form.file ? form.reason : `multipart form could not be read: ${form.reason}`);
    return accepted(query, form.fields);
  }

  if (mediaType.startsWith('text/') || mediaType === 'application/xml' || mediaType.endsWith('+xml')) {
    if (charset === undefined || UTF8_NAMES.has(charset)) {
      const text = utf8(rawBody);
      if (text === undefined) return rejected('body is not valid UTF-8');
      return accepted(query, { raw_body: text });
    }
    if (LATIN1_NAMES.has(charset)) return accepted(query, { raw_body: rawBody.toString('latin1') });
  }

  return accepted(query, { raw_body_base64: rawBody.toString('base64') });
}

const UTF8_NAMES = new Set(['utf-8', 'utf8', 'us-ascii', 'ascii']);
const LATIN1_NAMES = new Set(['iso-8859-1', 'latin1', 'latin-1']);

/** Lower-cased media type and charset of a Content-Type header. */
export function splitContentType(header: string | undefined): { mediaType: string; charset: string | undefined } {
  if (!header) return { mediaType: '', charset: undefined };
  const semi = header.indexOf(';');
  const mediaType = (semi < 0 ? header : header.slice(0, semi)).trim().toLowerCase();
  if (semi < 0) return { mediaType, charset: undefined };
  const m = /(?:^|;)\s*charset\s*=\s*"?([^";\s]+)"?/i.exec(header.slice(semi));
  return { mediaType, charset: m?.[1]?.toLowerCase() };
}

/** Strict UTF-8 decode (a leading BOM dropped); undefined when the bytes are not UTF-8. */
function utf8(bytes: Buffer): string | undefined {
  if (!isUtf8(bytes)) return undefined;
  const text = bytes.toString('utf8');
  return text.charCodeAt(0) === 0xfeff ? text.slice(1) : text;
}

/**
 * The result for validated JSON object text: `payload` is parsed on first
 * access (and kept), never when the caller keeps only `json`.
 */
function keptText(json: string): ParseResult {
  let value: Payload | undefined;
  return {
    ok: true,
    json,
    get payload(): Payload {
      return (value ??= JSON.parse(json) as Payload);
    },
  };
}

function accepted(query: Fields, body: Payload): ParseResult {
  // Body wins on a clash (see above); skip the copy in the common no-query case.
  return { ok: true, payload: isEmpty(query) ? body : { ...query, ...body } };
}

function rejected(error: string): ParseResult {
  return { ok: false, status: 400, body: { status: 'rejected', error } };
}
