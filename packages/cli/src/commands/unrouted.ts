import type { Command } from 'commander';
import type { AnswerOf, dropUnrouted, listUnrouted, listUnroutedTopics, replayUnrouted } from '@hookyard/api';
import { apiPath } from '../client';
import type { CliContext } from '../context';
import { printTable, say } from '../output';

/**
 * `hookyard unrouted ...` over `/api/unrouted`: the events that came in on a
 * topic with no hook (a typo in a sender's URL, a hook not registered yet).
 */
export function unroutedCommand(program: Command, ctx: CliContext): void {
  const unrouted = program.command('unrouted').description('events that came in on a topic with no hook: list, show, replay to hooks registered since, drop');

  unrouted
    .command('list')
    .description('the topics with unrouted events: counts, first and last seen, the newest payload')
    .action(async () => {
      const res = await ctx.client().get<AnswerOf<typeof listUnroutedTopics>>(apiPath(['unrouted']));
      ctx.emit(res, () => printTable(res.topics, ['topic', 'kept', 'received', 'first_seen', 'last_seen', 'sample']));
    });

  unrouted
    .command('show <topic>')
    .description("a topic's unrouted events, newest first")
    .option('--limit <n>', 'how many (1 to 500, default 50)')
    .option('--cursor <cursor>', 'the next_cursor of the page before')
    .action(async (topic: string, opts: { limit?: string; cursor?: string }) => {
      const q = new URLSearchParams();
      if (opts.limit !== undefined) q.set('limit', opts.limit);
      if (opts.cursor !== undefined) q.set('cursor', opts.cursor);
      const res = await ctx.client().get<AnswerOf<typeof listUnrouted>>(apiPath(['unrouted', topic], q));
      ctx.emit(res, () => {
        printTable(res.events, ['received_at', 'door', 'verified', 'delivery_id', 'payload']);
        if (res.next_cursor) say(`more: --cursor ${res.next_cursor}`);
      });
    });

  unrouted
    .command('replay <topic>')
    .description(
      'keep runs of the hooks registered on the topic since, one per hook for each kept event (door api, not verified), and remove the events (operator)',
    )
    .action(async (topic: string) => {
      const res = await ctx.client().post<AnswerOf<typeof replayUnrouted>>(apiPath(['unrouted', topic, 'replay']));
      ctx.emit(res, () => {
        say(
          `replayed ${res.replayed} event${res.replayed === 1 ? '' : 's'} on ${topic}: ${res.runs} run${res.runs === 1 ? '' : 's'} of ${res.hooks.join(', ')}`,
        );
        // Events kept truncated are not replayed: say so, or an operator takes the count for all of them.
        if (res.message) say(res.message);
      });
    });

  unrouted
    .command('drop <topic>')
    .description("drop a topic's unrouted events (operator)")
    .action(async (topic: string) => {
      const res = await ctx.client().delete<AnswerOf<typeof dropUnrouted>>(apiPath(['unrouted', topic]));
      ctx.emit(res, () => say(`dropped ${res.removed} unrouted event${res.removed === 1 ? '' : 's'} on ${topic}`));
    });
}
