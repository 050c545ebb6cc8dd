import { constants } from 'node:fs';
import { lstat, mkdir, open, readdir } from 'node:fs/promises';
import path from 'node:path';
import { badInput, HookyardError, notFound, toHookyardError } from '@hookyard/core';
import { confine } from './confine';
import type { LocalTool } from './local-repo';

/** Bounds of one local_fs call. */
export interface LocalFsLimits {
  /** Largest file read or written, in bytes (default 1 MiB). */
  maxFileBytes: number;
  /** Most entries a list returns (default 1000). */
  maxEntries: number;
  /** Deepest list/search below the path (default 8). */
  maxDepth: number;
  /** Most matches a search returns (default 100). */
  maxMatches: number;
}

export const LOCAL_FS_LIMITS: LocalFsLimits = { maxFileBytes: 1024 * 1024, maxEntries: 1000, maxDepth: 8, maxMatches: 100 };

const SCHEMA = {
  type: 'object',
  properties: {
    op: { type: 'string', enum: ['read', 'write', 'list', 'search'], description: 'What to do.' },
    path: { type: 'string', description: 'Relative to the root; "." is the root.' },
    content: { type: 'string', description: 'write: the new content of the file (created or replaced).' },
    query: { type: 'string', minLength: 1, description: 'search: a literal string looked for, line by line.' },
    depth: { type: 'integer', minimum: 1, description: 'list/search: how many levels below path (default 1 for list, the maximum for search).' },
  },
  required: ['op', 'path'],
  additionalProperties: false,
} as const;

interface Entry {
  path: string;
  type: 'file' | 'dir' | 'symlink' | 'other';
  size: number;
}

/** Turns a filesystem failure into a kind (a missing file is `not_found`, not `internal`). */
function fsError(err: unknown, rel: string): HookyardError {
  if (err instanceof HookyardError) return err;
  const code = (err as { code?: string }).code;
  if (code === 'ENOENT') return notFound(`local_fs: ${JSON.stringify(rel)} does not exist`);
  if (code === 'ELOOP') return new HookyardError('unauthorized', `local_fs: ${JSON.stringify(rel)} is a symlink`);
  if (code === 'EISDIR' || code === 'ENOTDIR') return badInput(`local_fs: ${JSON.stringify(rel)}: ${code === 'EISDIR' ? 'is a directory' : 'not a directory'}`);
  if (code === 'EACCES' || code === 'EPERM') return new HookyardError('unauthorized', `local_fs: ${JSON.stringify(rel)}: permission denied`);
  return toHookyardError(err);
}

/** Reads at most `max` bytes; never follows a link at the last step (a race after confine cannot redirect it). */
async function readHead(file: string, max: number): Promise<{ text: string; size: number; truncated: boolean }> {
  const fh = await open(file, constants.O_RDONLY | constants.O_NOFOLLOW);
  try {
    const st = await fh.stat();
    if (!st.isFile()) throw badInput(`local_fs: not a regular file`);
    const buf = Buffer.alloc(Math.min(st.size, max));
    const { bytesRead } = await fh.read(buf, 0, buf.length, 0);
    return { text: buf.subarray(0, bytesRead).toString('utf8'), size: st.size, truncated: st.size > max };
  } finally {
    await fh.close();
  }
}

/** Walks below `dir` without following links, up to `depth` levels, calling `visit` per entry until it returns false. */
async function walk(dir: string, rel: string, depth: number, visit: (e: Entry, abs: string) => Promise<boolean>): Promise<boolean> {
  const names = (await readdir(dir)).sort();
  for (const name of names) {
    const abs = path.join(dir, name);
    const st = await lstat(abs).catch(() => null);
    if (!st) continue;
    const type: Entry['type'] = st.isSymbolicLink() ? 'symlink' : st.isDirectory() ? 'dir' : st.isFile() ? 'file' : 'other';
    const entry = { path: rel === '.' ? name : `${rel}/${name}`, type, size: st.size };
    if (!(await visit(entry, abs))) return false;
    if (type === 'dir' && depth > 1 && !(await walk(abs, entry.path, depth - 1, visit))) return false;
  }
  return true;
}

/** `local_fs`: read, write, list and search files confined to `root`. */
export function localFsTool(root: string, limits: LocalFsLimits = LOCAL_FS_LIMITS): LocalTool {
  const depthOf = (v: unknown, def: number): number => {
    if (v === undefined) return def;
    if (typeof v !== 'number' || !Number.isInteger(v) || v < 1) throw badInput(`local_fs: depth must be a whole number >= 1, got ${JSON.stringify(v)}`);
    return Math.min(v, limits.maxDepth);
  };

  async function run(args: Record<string, unknown>): Promise<unknown> {
    const rel = typeof args.path === 'string' ? args.path : '';
    const target = await confine(root, args.path);
    switch (args.op) {
      case 'read': {
        const r = await readHead(target.real, limits.maxFileBytes);
        return { path: rel, content: r.text, size: r.size, truncated: r.truncated };
      }
      case 'write': {
        if (typeof args.content !== 'string') throw badInput(`local_fs: write needs content as a string, got ${JSON.stringify(args.content)}`);
        const bytes = Buffer.from(args.content, 'utf8');
        if (bytes.length > limits.maxFileBytes) throw badInput(`local_fs: content is ${bytes.length} bytes; the limit is ${limits.maxFileBytes}`);
        if (target.missing.length > 1) await mkdir(path.dirname(target.real), { recursive: true });
        const fh = await open(target.real, constants.O_WRONLY | constants.O_CREAT | constants.O_TRUNC | constants.O_NOFOLLOW, 0o644);
        try {
          await fh.writeFile(bytes);
        } finally {
          await fh.close();
        }
        return { path: rel, written: bytes.length };
      }
      case 'list': {
        const entries: Entry[] = [];
        const complete = await walk(target.real, rel === '' ? '.' : rel.replace(/\/+$/, ''), depthOf(args.depth, 1), async (e) => {
          entries.push(e);
          return entries.length < limits.maxEntries;
        });
        return { path: rel, entries, truncated: !complete };
      }
      case 'search': {
        if (typeof args.query !== 'string' || args.query === '')
          throw badInput(`local_fs: search needs a non-empty query string, got ${JSON.stringify(args.query)}`);
        const query = args.query;
        const matches: { path: string; line: number; text: string }[] = [];
        const complete = await walk(target.real, rel === '' ? '.' : rel.replace(/\/+$/, ''), depthOf(args.depth, limits.maxDepth), async (e, abs) => {
          if (e.type !== 'file' || e.size > limits.maxFileBytes) return true;
          const { text } = await readHead(abs, limits.maxFileBytes).catch(() => ({ text: '' }));
          const lines = text.split('\n');
          for (let i = 0; i < lines.length; i++) {
            const line = lines[i] ?? '';
            if (!line.includes(query)) continue;
            matches.push({ path: e.path, line: i + 1, text: line.slice(0, 300) });
            if (matches.length >= limits.maxMatches) return false;
          }
          return true;
        });
        return { path: rel, query, matches, truncated: !complete };
      }
      default:
        throw badInput(`local_fs: op must be one of read, write, list, search, got ${JSON.stringify(args.op)}`);
    }
  }

  return {
    info: {
      name: 'local_fs',
      description: 'Reads, writes, lists and searches files inside the configured root directory.',
      parameters: SCHEMA,
      provider: 'local',
    },
    async run(args) {
      try {
        return await run(args);
      } catch (err) {
        throw fsError(err, typeof args.path === 'string' ? args.path : String(args.path));
      }
    },
  };
}
