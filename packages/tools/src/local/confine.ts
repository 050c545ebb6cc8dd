import { lstat, realpath } from 'node:fs/promises';
import path from 'node:path';
import { badInput, unauthorized } from '@hookyard/core';

/** A path inside the root, resolved: `real` is where it lives; `missing` is the part not yet created. */
export interface ConfinedPath {
  real: string;
  missing: string[];
}

function inside(root: string, p: string): boolean {
  return p === root || p.startsWith(root.endsWith(path.sep) ? root : root + path.sep);
}

/**
 * Resolves a caller's relative path inside `root`, refusing every way out:
 * absolute paths, `..` segments, and symlinks that lead outside — including a
 * file not yet created under a symlinked parent. The deepest existing
 * ancestor is resolved with realpath and must lie inside the real root; the
 * rest does not exist yet, so it cannot be a link.
 */
export async function confine(root: string, relative: unknown): Promise<ConfinedPath> {
  if (typeof relative !== 'string') throw badInput(`path must be a string relative to the root, got ${JSON.stringify(relative)}`);
  if (relative.includes('\0')) throw badInput('path must not contain NUL');
  if (path.isAbsolute(relative) || /^[a-zA-Z]:/.test(relative))
    throw unauthorized(`path ${JSON.stringify(relative)} is absolute; paths are relative to the root`);
  const segments = relative.split(/[\\/]+/).filter((s) => s !== '' && s !== '.');
  if (segments.includes('..')) throw unauthorized(`path ${JSON.stringify(relative)} climbs out with '..'`);

  const realRoot = await realpath(root);
  const missing: string[] = [];
  const probe = segments.slice();
  for (;;) {
    const candidate = path.join(realRoot, ...probe);
    try {
      const real = await realpath(candidate);
      if (!inside(realRoot, real)) throw unauthorized(`path ${JSON.stringify(relative)} leads outside the root through a symlink`);
      return { real: path.join(real, ...missing), missing };
    } catch (err) {
      const code = (err as { code?: string }).code;
      if (code !== 'ENOENT' && code !== 'ENOTDIR') throw err;
      // A link whose target is missing could be created through: refuse it.
      if (
        await lstat(candidate).then(
          (st) => st.isSymbolicLink(),
          () => false,
        )
      ) {
        throw unauthorized(`path ${JSON.stringify(relative)} goes through a dangling symlink`);
      }
      // Not there yet (or a dangling link): step up to the parent.
      const last = probe.pop();
      if (last === undefined) throw err;
      missing.unshift(last);
    }
  }
}
