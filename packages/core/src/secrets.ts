import { readFile as fsReadFile, realpath as fsRealpath } from 'node:fs/promises';
import { posix } from 'node:path';
import { HookyardError, internal } from './errors';

/**
 * Secrets are referenced, never stored or echoed. A reference names where the
 * secret lives: `env:NAME` (an environment variable of the process that uses
 * it) or `file:/path` (a mounted file). It is resolved when the secret is
 * used, so a rotated variable or file is picked up without re-registering.
 *
 * Verifier bindings keep references as bare strings. Records whose values may
 * be either a plain value or a secret (tool headers, injected arguments, gRPC
 * metadata) hold a reference as the object `{"secret": "env:NAME"}`.
 */
export interface SecretRef {
  /** `env:NAME` or `file:/absolute/path`. */
  secret: string;
}

/** A value that is either a literal string or a reference to a secret. */
export type StringOrSecret = string | SecretRef;

/** Names an `env:` reference may use. */
export const SECRET_ENV_NAME = /^[A-Za-z_][A-Za-z0-9_]{0,127}$/;

/**
 * Which references a deployment allows: environment variables whose name
 * starts with `envPrefix`, and files inside one of `dirs`. A record is written
 * by an admin but its secrets are sent to an endpoint the record chose, so a
 * reference must never reach the process's own credentials (its API tokens,
 * its Redis password, the pod's service-account token).
 */
export interface SecretScope {
  /** Prefix every `env:` name must start with (default `HOOKS_SECRET_`). */
  envPrefix: string;
  /** Absolute directories `file:` references must lie in (default `/var/run/secrets/hookyard`). */
  dirs: readonly string[];
}

/** The scope when no setting says otherwise: `HOOKS_SECRET_*` variables and files under /var/run/secrets/hookyard. */
export const DEFAULT_SECRET_SCOPE: SecretScope = Object.freeze({ envPrefix: 'HOOKS_SECRET_', dirs: Object.freeze(['/var/run/secrets/hookyard']) });

/** Variables no scope may open: Hookyard's own settings carry its credentials (HOOKS_API_TOKENS, Redis and NATS URLs). */
const NEVER_ENV = /^(?:HOOKS_(?!SECRET_)|TAI_DEFAULT_REDIS_URL$|OTEL_)/;
/** Files no scope may open: the Kubernetes service account (token, CA), however the path is spelled. */
const NEVER_FILE = /^\/(?:var\/)?run\/secrets\/kubernetes\.io(?:\/|$)/;

function inDir(path: string, dir: string): boolean {
  const d = dir.endsWith('/') ? dir : `${dir}/`;
  return path.startsWith(d);
}

/** Why `ref` (already a well-formed env:/file: reference) is outside `scope`; undefined when inside. */
function scopeViolation(field: string, ref: string, scope: SecretScope): string | undefined {
  if (ref.startsWith('env:')) {
    const name = ref.slice(4);
    if (NEVER_ENV.test(name)) return `${field} names ${name}, one of Hookyard's own settings, which a secret reference may never read`;
    if (!name.startsWith(scope.envPrefix)) return `${field} names ${name}; secret variables must start with ${scope.envPrefix} (HOOKS_SECRET_ENV_PREFIX)`;
    return undefined;
  }
  const path = ref.slice(5);
  if (NEVER_FILE.test(path)) return `${field} names ${path}, the Kubernetes service account, which a secret reference may never read`;
  if (!scope.dirs.some((d) => inDir(path, d)))
    return `${field} names ${path}; secret files must lie in ${scope.dirs.join(', ') || '(no directory)'} (HOOKS_SECRET_DIRS)`;
  return undefined;
}

/** The shape `{"secret": <string>}` and nothing else (the reference itself is checked by `secretRefViolation`). */
export function isSecretRef(value: unknown): value is SecretRef {
  if (value === null || typeof value !== 'object' || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === 'secret' && typeof (value as { secret: unknown }).secret === 'string';
}

/**
 * The one line for a secret reference (`env:NAME`, `file:/path`) that is
 * wrong or outside `scope`, or undefined when it is a good reference.
 */
export function secretRefViolation(field: string, ref: unknown, scope: SecretScope = DEFAULT_SECRET_SCOPE): string | undefined {
  return secretRefFormViolation(field, ref) ?? scopeViolation(field, ref as string, scope);
}

/** Only the form of a reference: `env:` and a variable name, or `file:` and a normalized absolute path. */
export function secretRefFormViolation(field: string, ref: unknown): string | undefined {
  if (typeof ref !== 'string') return `${field} must be a string reference env:NAME or file:/path`;
  if (ref.startsWith('env:')) {
    return SECRET_ENV_NAME.test(ref.slice(4)) ? undefined : `${field} must name an environment variable matching ${SECRET_ENV_NAME.source} after env:`;
  }
  if (ref.startsWith('file:')) {
    const path = ref.slice(5);
    if (!(path.startsWith('/') && !path.includes('\0') && path.length <= 4096)) return `${field} must be file: followed by an absolute path`;
    // `..`, `.` and `//` would let a path that starts inside a directory end outside it.
    if (posix.normalize(path) !== path || path.endsWith('/')) return `${field} must be a normalized absolute path (no ., .. or //), got ${path}`;
    return undefined;
  }
  // Never echo the value: it is most likely the secret itself.
  return `${field} looks like a literal secret, which is never stored; put it in an environment variable or a mounted file and reference it as env:NAME or file:/path`;
}

/** Turns a secret reference (`env:NAME`, `file:/path`) into the secret. */
export interface SecretResolver {
  /** The secret's bytes. Throws HookyardError `internal`, quoting the reference (never a value), when it cannot be read. */
  resolve(ref: string): Promise<Buffer>;
}

export interface SecretResolverOptions {
  /** Where `env:` references are read (default process.env). */
  env?: NodeJS.ProcessEnv;
  /** How `file:` references are read (default fs.readFile). */
  readFile?: (path: string) => Promise<Buffer>;
  /** How long a file's content is reused before it is read again (default 5000 ms; 0 = every time). */
  fileCacheMs?: number;
  /** Clock for the file cache (default Date.now). */
  now?: () => number;
  /** References allowed at resolution time too (default DEFAULT_SECRET_SCOPE). */
  scope?: SecretScope;
  /** Resolves symlinks before the directory check (default fs.realpath; a missing file is reported by the read). */
  realpath?: (path: string) => Promise<string>;
}

/**
 * Secrets are read when they are used, not at boot, so a rotated mounted file
 * is picked up within `fileCacheMs` without a restart. A variable that is not
 * set, or is empty, and a file that cannot be read, or is empty, are
 * `internal` errors that quote the reference.
 */
export function createSecretResolver(options: SecretResolverOptions = {}): SecretResolver {
  const env = options.env ?? process.env;
  const readFile = options.readFile ?? ((path: string) => fsReadFile(path));
  const cacheMs = options.fileCacheMs ?? 5000;
  const now = options.now ?? Date.now;
  const cache = new Map<string, { value: Buffer; at: number }>();
  const scope = options.scope ?? DEFAULT_SECRET_SCOPE;
  const realpath = options.realpath ?? ((path: string) => fsRealpath(path));

  /** The file's real path must lie in a real secret directory too: a symlink in a secret directory is no way out. */
  async function checkRealPath(ref: string, path: string): Promise<void> {
    let real: string;
    try {
      real = await realpath(path);
    } catch {
      return; // missing or unreadable: the read reports it
    }
    if (real === path) return;
    const dirs = await Promise.all(scope.dirs.map((d) => realpath(d).catch(() => d)));
    if (NEVER_FILE.test(real) || !dirs.some((d) => inDir(real, d)))
      throw internal(`secret reference ${ref} leads outside the secret directories (HOOKS_SECRET_DIRS)`);
  }

  async function fromFile(ref: string, path: string): Promise<Buffer> {
    const hit = cache.get(path);
    if (hit && cacheMs > 0 && now() - hit.at < cacheMs) return hit.value;
    await checkRealPath(ref, path);
    let raw: Buffer;
    try {
      raw = await readFile(path);
    } catch (err) {
      const code = (err as { code?: unknown }).code;
      throw internal(`secret reference ${ref} cannot be read${typeof code === 'string' ? ` (${code})` : ''}`, err);
    }
    // Files written with `echo` or by editors end in a newline that is not part of the secret.
    const value = trimTrailingNewlines(raw);
    if (value.length === 0) throw internal(`secret reference ${ref} is empty`);
    if (cacheMs > 0) cache.set(path, { value, at: now() });
    return value;
  }

  // A reference's verdict depends on it and the scope only: checked once, not per delivery (bounded).
  const verdicts = new Map<string, { kind: 'internal' | 'forbidden'; message: string } | null>();
  const refused = (ref: string): { kind: 'internal' | 'forbidden'; message: string } | null => {
    let verdict = verdicts.get(ref);
    if (verdict !== undefined) return verdict;
    if (secretRefFormViolation('secret', ref) !== undefined) {
      verdict = { kind: 'internal', message: 'a stored secret reference is not one (env:NAME or file:/path); register it again' };
    } else {
      // Checked again here: a record kept before the scope (or under a wider one) must not read outside it now.
      const outside = secretRefViolation('secret reference', ref, scope);
      verdict = outside === undefined ? null : { kind: 'forbidden', message: outside };
    }
    if (verdicts.size >= 1000) verdicts.clear();
    verdicts.set(ref, verdict);
    return verdict;
  };

  return {
    async resolve(ref: string): Promise<Buffer> {
      const verdict = refused(ref);
      if (verdict !== null) throw new HookyardError(verdict.kind, verdict.message);
      if (ref.startsWith('env:')) {
        const value = env[ref.slice(4)];
        if (value === undefined) throw internal(`secret reference ${ref} is not set`);
        // An empty secret is a mistake (an empty signing key would let anyone sign).
        if (value === '') throw internal(`secret reference ${ref} is empty`);
        return Buffer.from(value, 'utf8');
      }
      return fromFile(ref, ref.slice(5));
    },
  };
}

function trimTrailingNewlines(buf: Buffer): Buffer {
  let end = buf.length;
  while (end > 0 && (buf[end - 1] === 0x0a || buf[end - 1] === 0x0d)) end -= 1;
  return buf.subarray(0, end);
}
