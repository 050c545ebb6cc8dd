import { nearestName } from '@hookyard/core';
import { apiPath, CliError, type ApiClient } from './client';

/**
 * A `--hook` filter that names no registered hook matches nothing, which looks
 * like "no runs yet": says so on stderr, naming the closest registered hook
 * when one is close in spelling. The exit code stays what the command's is
 * (0 with an empty list); a failed look-up says nothing (the filter still applied).
 */
export async function warnUnknownHook(client: ApiClient, hook: string | undefined): Promise<void> {
  if (hook === undefined) return;
  let names: string[];
  try {
    const page = await client.get<{ hooks: { name: string }[] }>(apiPath(['hooks']));
    names = page.hooks.map((h) => h.name);
  } catch (err) {
    if (err instanceof CliError) return;
    throw err;
  }
  if (names.includes(hook)) return;
  const near = nearestName(hook, names);
  process.stderr.write(
    `hookyard: warning: no hook named ${JSON.stringify(hook)} is registered${near ? ` (did you mean ${JSON.stringify(near)}?)` : ''}; see 'hookyard hooks list'\n`,
  );
}
