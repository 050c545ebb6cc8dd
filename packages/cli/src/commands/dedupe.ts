import type { Command } from 'commander';
import { CliError, EXIT, apiPath } from '../client';
import { printRecord, say } from '../output';
import type { CliContext } from '../context';
import type { AnswerOf, getDedupe, putDedupe, removeDedupe } from '@hookyard/api';

/**
 * `hookyard hooks dedupe ...` over `GET/PUT/DELETE /api/hooks/topics/{topic}/dedupe`.
 * Answers: set `{created, dedupe}`, show the bare key, remove `{removed, topic}`.
 */
export function dedupeCommand(hooks: Command, ctx: CliContext): void {
  const dedupe = hooks.command('dedupe').description("set, show or remove a topic's dedupe key (the delivery id of an event its verifier gives none)");
  const path = (topic: string) => apiPath(['hooks', 'topics', topic, 'dedupe']);

  dedupe
    .command('set <topic>')
    .description('set or replace the dedupe key of a topic (admin): jq over {headers, query, body}')
    .requiredOption('--expr <jq>', 'e.g. \'.headers["x-event-id"]\' or .body.id; a string or number is the delivery id, null keeps without dedupe')
    .option('--horizon <seconds>', 'how long a key value stays claimed, 1 to 604800 (default 86400)')
    .addHelpText('after', "\nExample:\n  hookyard hooks dedupe set orders --expr '.body.id' --horizon 172800")
    .action(async (topic: string, opts: { expr: string; horizon?: string }) => {
      let horizon: number | undefined;
      if (opts.horizon !== undefined) {
        if (!/^\d+$/.test(opts.horizon)) throw new CliError(`--horizon must be a whole number of seconds, got ${JSON.stringify(opts.horizon)}`, EXIT.usage);
        horizon = Number(opts.horizon);
      }
      const body = { expr: opts.expr, ...(horizon !== undefined ? { horizon_seconds: horizon } : {}) };
      const res = await ctx.client().put<AnswerOf<typeof putDedupe>>(path(topic), body);
      ctx.emit(res, () =>
        say(`${res.created ? 'set' : 'replaced'} the dedupe key of topic ${res.dedupe.topic}: ${res.dedupe.expr} (${res.dedupe.horizon_seconds} s)`),
      );
    });

  dedupe
    .command('show <topic>')
    .description("show a topic's dedupe key")
    .action(async (topic: string) => {
      const key = await ctx.client().get<AnswerOf<typeof getDedupe>>(path(topic));
      ctx.emit(key, () => printRecord(key));
    });

  dedupe
    .command('remove <topic>')
    .description("remove a topic's dedupe key (admin): its events are kept without dedupe")
    .action(async (topic: string) => {
      const res = await ctx.client().delete<AnswerOf<typeof removeDedupe>>(path(topic));
      ctx.emit(res, () => say(`removed the dedupe key of topic ${res.topic ?? topic}`));
    });
}
