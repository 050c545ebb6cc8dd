import type { Command } from 'commander';
import type { AnswerOf, cancelInteraction, getInteraction, listInteractions } from '@hookyard/api';
import { INTERACTION_KINDS, INTERACTION_STATUSES } from '@hookyard/core';
import { CliError, EXIT, apiPath } from '../client';
import { printRecord, printTable, say } from '../output';
import type { CliContext } from '../context';

type WireInteraction = AnswerOf<typeof getInteraction>;
type InteractionPage = AnswerOf<typeof listInteractions>;

const MAX_LIMIT = 500;
const MAX_PAGES = 10_000;

interface ListOptions {
  status?: string;
  kind?: string;
  run?: string;
  hook?: string;
  limit?: string;
  cursor?: string;
  all?: boolean;
}

function listQuery(opts: ListOptions, cursor: string | undefined): URLSearchParams {
  const q = new URLSearchParams();
  for (const k of ['status', 'kind', 'run', 'hook', 'limit'] as const) if (opts[k] !== undefined) q.set(k, opts[k]);
  if (cursor !== undefined) q.set('cursor', cursor);
  return q;
}

function checkListOptions(opts: ListOptions): void {
  if (opts.status !== undefined && !(INTERACTION_STATUSES as readonly string[]).includes(opts.status)) {
    throw new CliError(`--status must be one of ${INTERACTION_STATUSES.join(', ')}, got ${JSON.stringify(opts.status)}`, EXIT.usage);
  }
  if (opts.kind !== undefined && !(INTERACTION_KINDS as readonly string[]).includes(opts.kind)) {
    throw new CliError(`--kind must be one of ${INTERACTION_KINDS.join(', ')}, got ${JSON.stringify(opts.kind)}`, EXIT.usage);
  }
  if (opts.limit !== undefined && !(/^\d{1,4}$/.test(opts.limit) && Number(opts.limit) >= 1 && Number(opts.limit) <= MAX_LIMIT)) {
    throw new CliError(`--limit must be a whole number from 1 to ${MAX_LIMIT}, got ${JSON.stringify(opts.limit)}`, EXIT.usage);
  }
  if (opts.all && opts.cursor !== undefined) throw new CliError('give either --all or --cursor, not both', EXIT.usage);
}

function row(i: WireInteraction): Record<string, unknown> {
  const r = i.resolution;
  return { ...i, resolved_by: r ? `${r.by} via ${r.via}` : '' };
}

/**
 * `hookyard interactions ...` over `GET /api/interactions`, `GET /api/interactions/{id}`
 * and `POST /api/interactions/{id}/cancel`. Answers: list `{interactions, next_cursor}`;
 * show and cancel the bare interaction.
 */
export function interactionsCommand(program: Command, ctx: CliContext): void {
  const cmd = program.command('interactions').description('list, show, cancel (and approve or deny) what parked runs wait on');

  cmd
    .command('list')
    .description('list interactions, newest first, one page (or every page with --all)')
    .option('--status <status>', `only one status: ${INTERACTION_STATUSES.join(', ')}`)
    .option('--kind <kind>', `only one kind: ${INTERACTION_KINDS.join(', ')}`)
    .option('--run <id>', 'only the interactions of one run')
    .option('--hook <name>', "only the interactions of one hook's runs")
    .option('--limit <n>', `page size, 1-${MAX_LIMIT} (server default 50)`)
    .option('--cursor <cursor>', 'the next_cursor of the previous page')
    .option('--all', 'follow next_cursor to the last page and print every interaction')
    .addHelpText('after', '\nExamples:\n  hookyard interactions list --status open\n  hookyard interactions list --kind wait --all --json')
    .action(async (opts: ListOptions) => {
      checkListOptions(opts);
      const client = ctx.client();
      let page = await client.get<InteractionPage>(apiPath(['interactions'], listQuery(opts, opts.cursor)));
      if (opts.all) {
        const all = [...page.interactions];
        for (let n = 1; page.next_cursor && n < MAX_PAGES; n++) {
          page = await client.get<InteractionPage>(apiPath(['interactions'], listQuery(opts, page.next_cursor)));
          all.push(...page.interactions);
        }
        page = { interactions: all, next_cursor: page.next_cursor };
      }
      const res = page;
      ctx.emit(res, () => {
        printTable(res.interactions.map(row), ['id', 'kind', 'status', 'hook', 'run', 'tool', 'expires_at', 'resolved_by', 'message']);
        if (res.next_cursor) say(`more: hookyard interactions list --cursor ${res.next_cursor} (or --all)`);
      });
    });

  cmd
    .command('show <id>')
    .description('show one interaction: its run, tool, args hash, expiry, status, resolution and kept outcome')
    .action(async (id: string) => {
      const i = await ctx.client().get<WireInteraction>(apiPath(['interactions', id]));
      ctx.emit(i, () => printRecord(i));
    });

  cmd
    .command('cancel <id>')
    .description('cancel an open interaction (operator): its parked run ends cancelled; refused (409) once it is resolved')
    .option('--reason <text>', 'kept in the resolution')
    .action(async (id: string, opts: { reason?: string }) => {
      const i = await ctx
        .client()
        .post<AnswerOf<typeof cancelInteraction>>(apiPath(['interactions', id, 'cancel']), opts.reason === undefined ? {} : { reason: opts.reason });
      ctx.emit(i, () => say(`interaction ${i.id} is ${i.status}; run ${i.run} ends cancelled`));
    });
}
