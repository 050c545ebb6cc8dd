import { readFile as fsReadFile } from 'node:fs/promises';
import { HookyardError, internal } from '@hookyard/core';
import { secretRefViolation } from './binding';

/** Turns a secret reference (`env:NAME`, `file:/path`) into the secret's bytes. */
export interface SecretResolver {
  /** Throws HookyardError `internal` when the reference cannot be read: the door answers 500, keeps nothing. */
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
}

/**
 * Secrets are read when a delivery is verified, not at boot, so a rotated
 * mounted file is picked up within `fileCacheMs` without a restart.
 */
export function createSecretResolver(options: SecretResolverOptions = {}): SecretResolver {
  const env = options.env ?? process.env;
  const readFile = options.readFile ?? ((path: string) => fsReadFile(path));
  const cacheMs = options.fileCacheMs ?? 5000;
  const now = options.now ?? Date.now;
  const cache = new Map<string, { value: Buffer; at: number }>();

  async function fromFile(ref: string, path: string): Promise<Buffer> {
    const hit = cache.get(path);
    if (hit && cacheMs > 0 && now() - hit.at < cacheMs) return hit.value;
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

  return {
    async resolve(ref: string): Promise<Buffer> {
      if (secretRefViolation('secret', ref) !== undefined) {
        throw new HookyardError('internal', 'a verifier binding holds something that is not a secret reference (env:NAME or file:/path)');
      }
      if (ref.startsWith('env:')) {
        const value = env[ref.slice(4)];
        if (value === undefined) throw internal(`secret reference ${ref} is not set`);
        // An empty key would let anyone compute a valid signature.
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
