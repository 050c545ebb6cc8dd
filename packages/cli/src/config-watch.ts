import { watch, readFileSync, type FSWatcher } from 'node:fs';
import { basename, dirname } from 'node:path';
import type { Logger } from '@hookyard/core';

export interface ConfigWatch {
  close(): void;
}

export interface ConfigWatchOptions {
  /** Quiet time after the last event before the file is read (an editor or a ConfigMap swap writes in steps). */
  debounceMs?: number;
  /** While the file is missing (mid-swap), how often to look again, and for how long before saying so. */
  missingRetryMs?: number;
  missingWarnAfterMs?: number;
}

/**
 * Calls `onChange` when the content of `path` changed. Watches the file and
 * its directory: a Kubernetes ConfigMap volume updates by swapping its
 * `..data` symlink (the file's inode never changes, the directory's entries
 * do), editors write a new file and rename it over the old one. Events are
 * debounced; the content is compared with what was last read, so a touch or a
 * swap to the same content does nothing. A file briefly missing is looked for
 * again until it is back (a WARN once if it stays away).
 */
export function watchConfigFile(path: string, onChange: () => void, logger: Logger, opts: ConfigWatchOptions = {}): ConfigWatch {
  const debounceMs = opts.debounceMs ?? 200;
  const missingRetryMs = opts.missingRetryMs ?? 250;
  const missingWarnAfterMs = opts.missingWarnAfterMs ?? 10_000;
  const read = (): string | null => {
    try {
      return readFileSync(path, 'utf8');
    } catch {
      return null;
    }
  };
  let last = read();
  let closed = false;
  let timer: NodeJS.Timeout | undefined;
  let missingSince: number | null = null;
  let warned = false;
  let fileWatcher: FSWatcher | null = null;

  const schedule = (ms: number) => {
    if (closed) return;
    if (timer) clearTimeout(timer);
    timer = setTimeout(check, ms);
  };
  const check = () => {
    timer = undefined;
    if (closed) return;
    const text = read();
    if (text === null) {
      missingSince ??= Date.now();
      if (!warned && Date.now() - missingSince >= missingWarnAfterMs) {
        warned = true;
        logger.warn({ file: path }, 'HOOKS_CONFIG_FILE is missing; keeping the settings in effect until it is back');
      }
      return schedule(missingRetryMs);
    }
    missingSince = null;
    warned = false;
    armFile();
    if (text === last) return;
    last = text;
    onChange();
  };
  // The file's own watch follows one inode: after a rename over it or a swap it must be set again.
  const armFile = () => {
    fileWatcher?.close();
    fileWatcher = null;
    try {
      fileWatcher = watch(path, { persistent: false }, () => schedule(debounceMs));
      fileWatcher.on('error', () => undefined);
    } catch {
      // Missing right now: the directory's watch sees it come back.
    }
  };
  const dirWatcher = watch(dirname(path), { persistent: false }, (_event, name) => {
    // A ConfigMap swaps `..data` (and its timestamped directories); anything else in the directory is not ours.
    if (name === null || name === basename(path) || name.startsWith('..')) schedule(debounceMs);
  });
  dirWatcher.on('error', (err) => logger.warn({ err, file: path }, 'cannot watch the directory of HOOKS_CONFIG_FILE; reload with SIGHUP'));
  armFile();
  logger.info({ file: path }, 'watching HOOKS_CONFIG_FILE: a change reloads the settings that apply live');
  return {
    close() {
      closed = true;
      if (timer) clearTimeout(timer);
      fileWatcher?.close();
      dirWatcher.close();
    },
  };
}
