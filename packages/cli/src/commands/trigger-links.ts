import type { AnswerOf, createTriggerLink, listTriggerLinks, revokeTriggerLink } from '@hookyard/api';
import type { Command } from 'commander';
import { CliError, EXIT, apiPath } from '../client';
import { printTable, say } from '../output';
import type { CliContext } from '../context';

/** A whole number of at least 1 from an option's text (a usage error naming the option otherwise). */
function positive(option: string, raw: string): number {
  if (!/^[1-9]\d*$/.test(raw)) throw new CliError(`${option} must be a whole number of at least 1, got ${JSON.stringify(raw)}`, EXIT.usage);
  return Number(raw);
}

/**
 * `hookyard hooks link create|list|revoke` over `/api/hooks/{name}/links`:
 * create answers `{link, token, path, url}` (the token is shown this once),
 * list `{links}` (never a token), revoke `{revoked, link}`.
 */
export function triggerLinkCommand(hooks: Command, ctx: CliContext): void {
  const link = hooks.command('link').description('trigger links: a URL that fires one hook, for senders that cannot sign');
  const path = (hook: string, id?: string) => apiPath(id === undefined ? ['hooks', hook, 'links'] : ['hooks', hook, 'links', id]);

  link
    .command('create <hook>')
    .description('make a trigger link for a hook (operator); its token is shown once, keep it like a password')
    .option('--label <text>', 'what the link is for')
    .option('--expires-in <seconds>', 'refused after this many seconds')
    .option('--expires-at <time>', 'refused after this ISO 8601 time (instead of --expires-in)')
    .option('--max-uses <n>', 'refused after this many runs')
    .addHelpText('after', '\nExample:\n  hookyard hooks link create nightly-report --label "cron on build-01" --expires-in 2592000 --max-uses 100')
    .action(async (hook: string, opts: { label?: string; expiresIn?: string; expiresAt?: string; maxUses?: string }) => {
      const body = {
        ...(opts.label !== undefined ? { label: opts.label } : {}),
        ...(opts.expiresIn !== undefined ? { expires_in_seconds: positive('--expires-in', opts.expiresIn) } : {}),
        ...(opts.expiresAt !== undefined ? { expires_at: opts.expiresAt } : {}),
        ...(opts.maxUses !== undefined ? { max_uses: positive('--max-uses', opts.maxUses) } : {}),
      };
      const res = await ctx.client().post<AnswerOf<typeof createTriggerLink>>(path(hook), body);
      ctx.emit(res, () => {
        say(`made trigger link ${res.link.id} for hook ${res.link.hook}; it is shown this once:`);
        say(res.url ?? `${res.path}   (on the ingress's address; set HOOKS_PUBLIC_URL to get the full URL)`);
        say(`fire it: curl -X POST -H 'content-type: application/json' -d '{}' '${res.url ?? `<ingress>${res.path}`}'`);
      });
    });

  link
    .command('list <hook>')
    .description("list a hook's trigger links (never their tokens)")
    .action(async (hook: string) => {
      const res = await ctx.client().get<AnswerOf<typeof listTriggerLinks>>(path(hook));
      ctx.emit(res, () =>
        printTable(
          res.links.map((l) => ({
            ...l,
            max_uses: l.max_uses ?? '-',
            last_used_at: l.last_used_at ?? 'never',
            expires_at: l.expires_at ?? 'never',
            revoked: l.revoked ? 'yes' : 'no',
          })),
          ['id', 'label', 'uses', 'max_uses', 'last_used_at', 'expires_at', 'revoked', 'created_by', 'created_at'],
        ),
      );
    });

  link
    .command('revoke <hook> <id>')
    .description('revoke a trigger link at once (operator): its next use is refused')
    .action(async (hook: string, id: string) => {
      const res = await ctx.client().delete<AnswerOf<typeof revokeTriggerLink>>(path(hook, id));
      ctx.emit(res, () => say(`revoked trigger link ${res.link.id} of hook ${res.link.hook} (${res.link.uses} use${res.link.uses === 1 ? '' : 's'})`));
    });
}
