import { REDACTED, type HookyardError, type HttpExchange } from '@hookyard/core';

/**
 * What a run keeps of a tool call (its result, its error, its HTTP reply) is
 * read by every reader, and an upstream may echo what it was sent: an echo
 * service, an error page quoting the request, a chat API repeating a header.
 * A SecretCut is told every secret value resolved for one call and replaces
 * each, and the forms it is commonly echoed in, with `[redacted]` before
 * anything is kept.
 */

/**
 * Secrets shorter than this are not cut: a value of one to three characters
 * is no credential, and cutting it would shred ordinary text ("ok", "id",
 * "200"). The same floor bounds every form below and every truncated tail.
 */
export const SECRET_CUT_MIN_CHARS = 4;

/** `<scheme> <credential>` header values: the credential alone is a secret too (echoed without its scheme). */
const SCHEME = /^(?:bearer|basic|token|bot|digest|apikey)\s+(\S+)$/i;

/**
 * The secret texts of one value: the value, and for `Bearer <token>` and the
 * like the credential alone; for `Basic`, also the decoded `user:password`
 * and the password. `bare` are those that start with secret characters (no
 * scheme, no user name): only their starts are cut where a text was
 * truncated, so "Polar Bear" keeps its bear.
 */
function secretTexts(secret: string): { all: string[]; bare: string[] } {
  const scheme = SCHEME.exec(secret);
  if (!scheme) return { all: [secret], bare: [secret] };
  const credential = scheme[1]!;
  const all = [secret, credential];
  const bare = [credential];
  if (/^basic\s/i.test(secret)) {
    const decoded = Buffer.from(credential, 'base64').toString('utf8');
    const colon = decoded.indexOf(':');
    // Only text that decodes cleanly (no replacement or control characters) is a user:password.
    if (colon >= 0 && ![...decoded].some((c) => c < ' ' || c === '\uFFFD')) {
      all.push(decoded, decoded.slice(colon + 1));
      bare.push(decoded.slice(colon + 1));
    }
  }
  return { all, bare };
}

/**
 * The forms a secret is echoed in: as it is; JSON-escaped (and with `\/`, as
 * PHP writes it); URL-encoded (upper- and lower-case hex, and form encoding);
 * base64 and base64url (with and without padding), and the part of its
 * base64 that is the same wherever it sits in a longer base64 text (as a
 * reply quoting request bytes in base64 would hold it). For `Bearer <token>`
 * and the like, the same for the credential; for `Basic`, also for the
 * decoded `user:password` and the password. Longest first; none under the
 * floor.
 */
export function secretForms(secret: string): string[] {
  return formsOf(secretTexts(secret).all);
}

function formsOf(values: readonly string[]): string[] {
  const forms = new Set<string>();
  for (const v of values) {
    if (v.length < SECRET_CUT_MIN_CHARS) continue;
    const json = JSON.stringify(v).slice(1, -1);
    const url = encodeURIComponent(v);
    for (const f of [
      v,
      json,
      json.replaceAll('/', '\\/'),
      url,
      url.replace(/%[0-9A-F]{2}/g, (h) => h.toLowerCase()),
      new URLSearchParams({ v }).toString().slice(2),
      ...base64Forms(Buffer.from(v, 'utf8')),
    ]) {
      if (f.length >= SECRET_CUT_MIN_CHARS) forms.add(f);
    }
  }
  return longestFirst(forms);
}

/** Distinct, longest first: a form that holds another is cut whole. */
function longestFirst(forms: Iterable<string>): string[] {
  return [...new Set(forms)].sort((a, b) => b.length - a.length);
}

/** Whole-value base64 and base64url (padded and not), and the cores that appear at each of the three alignments inside a longer encoding. */
function base64Forms(bytes: Buffer): string[] {
  const out: string[] = [];
  for (const alphabet of ['base64', 'base64url'] as const) {
    const whole = bytes.toString(alphabet);
    out.push(whole, whole.replace(/=+$/, ''));
    for (let offset = 0; offset < 3; offset++) {
      // With `offset` bytes before it, the first characters mix in those bytes and the last one mixes in what follows.
      const text = Buffer.concat([Buffer.alloc(offset), bytes])
        .toString(alphabet)
        .replace(/=+$/, '');
      const lead = [0, 2, 3][offset]!;
      const tail = (offset + bytes.length) % 3 === 0 ? 0 : 1;
      out.push(text.slice(lead, text.length - tail));
    }
  }
  return out;
}

/** One call's secrets and the cut of what is kept of the call. Empty (nothing told), every cut returns its input as it is. */
export class SecretCut {
  private forms: string[] = [];
  /** The forms whose start is cut at a truncation (see secretTexts). */
  private tails: string[] = [];
  /** Every form in one pattern (longest first): one scan per text, however many forms (a large result has many texts). */
  private pattern: RegExp | undefined;
  /** The first characters of every tail form: a text's end that holds none needs no closer look. */
  private tailHeads: RegExp | undefined;
  private longestTail = 0;
  private readonly told = new Set<string>();

  /** Told one secret value resolved for the call (bound: hand it on as a callback). */
  readonly add = (value: string): void => {
    if (this.told.has(value) || value.length < SECRET_CUT_MIN_CHARS) return;
    this.told.add(value);
    const texts = secretTexts(value);
    this.forms = longestFirst([...this.forms, ...formsOf(texts.all)]);
    this.tails = longestFirst([...this.tails, ...formsOf(texts.bare)]);
    if (this.forms.length === 0) return;
    this.pattern = new RegExp(this.forms.map(escapeRegExp).join('|'), 'g');
    const heads = longestFirst(this.tails.map((f) => f.slice(0, SECRET_CUT_MIN_CHARS)));
    this.tailHeads = heads.length > 0 ? new RegExp(heads.map(escapeRegExp).join('|')) : undefined;
    this.longestTail = this.tails[0]?.length ?? 0;
  };

  /** True when no secret was told: nothing to cut. */
  get empty(): boolean {
    return this.forms.length === 0;
  }

  /**
   * The text with every form of every secret replaced by `[redacted]`, and a
   * form's start (at least SECRET_CUT_MIN_CHARS long) cut off by truncation,
   * at the end of the text or before a `…`, replaced too.
   */
  text(text: string): string {
    if (!this.pattern) return text;
    return this.cutTails(text.replace(this.pattern, REDACTED));
  }

  /**
   * A JSON-like value with every string (object keys included) and every
   * number whose digits hold a secret cut. What holds no secret is returned
   * as it is (the same object), so a result's identity survives a cut that
   * changed nothing.
   */
  value(v: unknown): unknown {
    if (this.forms.length === 0) return v;
    return this.walk(v, new WeakSet());
  }

  /** The error with its message, details and stack cut; its class, kind and what it knows of the call kept. */
  error<E extends HookyardError>(e: E): E {
    if (this.forms.length === 0) return e;
    const message = this.text(e.message);
    const details = e.details.map((d) => this.text(d));
    if (message === e.message && details.every((d, i) => d === e.details[i])) return e;
    const copy = Object.assign(Object.create(Object.getPrototypeOf(e) as object) as E, e, { details });
    Object.defineProperty(copy, 'message', { value: message, writable: true, configurable: true });
    Object.defineProperty(copy, 'stack', { value: e.stack === undefined ? undefined : this.text(e.stack), writable: true, configurable: true });
    if (e.cause !== undefined) Object.defineProperty(copy, 'cause', { value: e.cause, writable: true, configurable: true });
    return copy;
  }

  /** An HTTP exchange with its header names and values and its body excerpt cut (status and sizes stay numbers). */
  http(x: HttpExchange): HttpExchange {
    if (this.forms.length === 0) return x;
    return { ...x, headers: this.walk(x.headers, new WeakSet()) as Record<string, string>, body: this.text(x.body) };
  }

  private walk(v: unknown, seen: WeakSet<object>): unknown {
    if (typeof v === 'string') return this.text(v);
    if (typeof v === 'number' || typeof v === 'bigint') {
      const digits = String(v);
      const cut = this.text(digits);
      return cut === digits ? v : cut;
    }
    if (v === null || typeof v !== 'object' || seen.has(v)) return v;
    seen.add(v);
    const toJSON = (v as { toJSON?: unknown }).toJSON;
    if (typeof toJSON === 'function') {
      const shown: unknown = toJSON.call(v);
      const cut = this.walk(shown, seen);
      return cut === shown ? v : cut;
    }
    if (Array.isArray(v)) {
      const items = v.map((item: unknown) => this.walk(item, seen));
      return items.every((item, i) => item === v[i]) ? v : items;
    }
    let changed = false;
    const out: Record<string, unknown> = {};
    for (const [k, item] of Object.entries(v)) {
      let key = this.text(k);
      // Two keys that both held a secret stay two entries.
      for (let n = 2; key !== k && Object.hasOwn(out, key); n++) key = `${REDACTED}#${n}`;
      const cut = this.walk(item, seen);
      if (key !== k || cut !== item) changed = true;
      Object.defineProperty(out, key, { value: cut, enumerable: true, writable: true, configurable: true });
    }
    return changed ? out : v;
  }

  /** A form's start that a truncation left at the end of the text or before a `…`. */
  private cutTails(text: string): string {
    let out = text;
    for (const edge of edgesOf(out).reverse()) {
      if (!this.tailHeads?.test(out.slice(Math.max(0, edge - this.longestTail), edge))) continue;
      for (const f of this.tails) {
        const len = longestTail(out, edge, f);
        if (len > 0) {
          out = `${out.slice(0, edge - len)}${REDACTED}${out.slice(edge)}`;
          break;
        }
      }
    }
    return out;
  }
}

function escapeRegExp(text: string): string {
  return text.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
}

/** Where a truncated text may end: its end, and every `…`. */
function edgesOf(text: string): number[] {
  const edges: number[] = [];
  for (let i = text.indexOf('…'); i >= 0; i = text.indexOf('…', i + 1)) edges.push(i);
  edges.push(text.length);
  return edges;
}

/** The length of the longest proper start of `form` (at least the floor) that ends at `edge` of `text`; 0 when none. */
function longestTail(text: string, edge: number, form: string): number {
  // Only where the form's first characters occur in the window before the edge, earliest (longest) first.
  const window = text.slice(Math.max(0, edge - (form.length - 1)), edge);
  const head = form.slice(0, SECRET_CUT_MIN_CHARS);
  for (let at = window.indexOf(head); at >= 0; at = window.indexOf(head, at + 1)) {
    if (form.startsWith(window.slice(at))) return window.length - at;
  }
  return 0;
}
