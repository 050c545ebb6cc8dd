import type { Command } from 'commander';
import { RUN_STATUSES } from '@hookyard/core';
import { CliError, EXIT, apiPath } from '../client';
import { cell, printRecord, printTable, say } from '../output';
import type { CliContext } from '../context';

type WireRun = Record<string, unknown> & { id: string; status: string; hook: string };
interface RunPage {
  runs: WireRun[];
  next_cursor: string | null;
}

/** The server's page bounds (`GET /api/hook-runs?limit=`). */
const MAX_LIMIT = 500;
/** `--all` stops after this many pages rather than loop forever on a server that keeps answering a cursor. */
const MAX_PAGES = 10_000;

interface ListOptions {
  status?: string;
  hook?: string;
  topic?: string;
  limit?: string;
  cursor?: string;
  all?: boolean;
}

function listQuery(opts: ListOptions, cursor: string | undefined): URLSearchParams {
  const q = new URLSearchParams();
  for (const k of ['status', 'hook', 'topic', 'limit'] as const) if (opts[k] !== undefined) q.set(k, opts[k]);
  if (cursor !== undefined) q.set('cursor', cursor);
  return q;
}

function checkListOptions(opts: ListOptions): void {
  if (opts.status !== undefined && !(RUN_STATUSES as readonly string[]).includes(opts.status)) {
    throw new CliError(`--status must be one of ${RUN_STATUSES.join(', ')}, got ${JSON.stringify(opts.status)}`, EXIT.usage);
  }
  if (opts.limit !== undefined && !(/^\d{1,4}$/.test(opts.limit) && Number(opts.limit) >= 1 && Number(opts.limit) <= MAX_LIMIT)) {
    throw new CliError(`--limit must be a whole number from 1 to ${MAX_LIMIT}, got ${JSON.stringify(opts.limit)}`, EXIT.usage);
  }
  if (opts.all && opts.cursor !== undefined) throw new CliError('give either --all or --cursor, not both', EXIT.usage);
}

/** One line per run for people; the error as `kind: message`. */
function runRow(r: WireRun): Record<string, unknown> {
  const e = r.error as { kind?: string; message?: string } | null | undefined;
  return { ...r, error: e ? `${e.kind ?? ''}: ${e.message ?? ''}` : '' };
}

/**
 * `hookyard runs ...` over `GET /api/hook-runs`, `GET/DELETE /api/hook-runs/{id}` and
 * `POST /api/hook-runs/{id}/retry`. Answers: list `{runs, next_cursor}`; show, retry and
 * discard the bare run.
 */
export function runsCommand(program: Command, ctx: CliContext): void {
  const runs = program.command('runs').description('list, show, retry and discard kept runs');

  runs
    .command('list')
    .description('list runs, newest first, one page (or every page with --all)')
    .option('--status <status>', `only runs in one state: ${RUN_STATUSES.join(', ')}`)
    .option('--hook <name>', 'only the runs of one hook')
    .option('--topic <topic>', 'only the runs on one topic')
    .option('--limit <n>', `page size, 1-${MAX_LIMIT} (server default 50)`)
    .option('--cursor <cursor>', 'the next_cursor of the previous page')
    .option('--all', 'follow next_cursor to the last page and print every run')
    .addHelpText('after', '\nExamples:\n  hookyard runs list --status failed\n  hookyard runs list --hook greet --all --json')
    .action(async (opts: ListOptions) => {
      checkListOptions(opts);
      const client = ctx.client();
      let page = await client.get<RunPage>(apiPath(['hook-runs'], listQuery(opts, opts.cursor)));
      if (opts.all) {
        const all = [...page.runs];
        for (let n = 1; page.next_cursor && n < MAX_PAGES; n++) {
          page = await client.get<RunPage>(apiPath(['hook-runs'], listQuery(opts, page.next_cursor)));
          all.push(...page.runs);
        }
        page = { runs: all, next_cursor: page.next_cursor };
      }
      const res = page;
      ctx.emit(res, () => {
        printTable(res.runs.map(runRow), ['id', 'hook', 'topic', 'status', 'attempts', 'acted', 'created_at', 'error']);
        if (res.next_cursor) say(`more: hookyard runs list --cursor ${res.next_cursor} (or --all)`);
      });
    });

  runs
    .command('tail')
    .description('follow run outcomes as they happen (GET /api/events), one line each, until interrupted')
    .option('--status <status>', `only outcomes of one state: ${RUN_STATUSES.join(', ')}`)
    .option('--hook <name>', 'only the runs of one hook')
    .option('--topic <topic>', 'only the runs on one topic')
    .addHelpText('after', '\nWith --json, one run summary (the hooks.events.run.* JSON) per line.\n\nExamples:\n  hookyard runs tail\n  hookyard runs tail --status failed --json')
    .action(async (opts: Pick<ListOptions, 'status' | 'hook' | 'topic'>) => {
      checkListOptions(opts);
      const q = new URLSearchParams();
      for (const k of ['status', 'hook', 'topic'] as const) if (opts[k] !== undefined) q.set(k, opts[k]);
      const stop = new AbortController();
      const onSignal = () => stop.abort();
      process.once('SIGINT', onSignal);
      process.once('SIGTERM', onSignal);
      try {
        await ctx.client().stream(
          apiPath(['events'], q),
          (event, data) => {
            if (event !== 'run') return;
            if (ctx.json()) return void process.stdout.write(`${data}\n`);
            const e = JSON.parse(data) as { run_id: string; hook: string; topic: string; status: string; attempts: number; error_kind: string | null; error_message: string | null; finished_at: string | null };
            say(`${e.finished_at ?? '-'}  ${e.status}  ${e.hook}  ${e.topic}  ${e.run_id}  attempts=${e.attempts}${e.error_kind ? `  ${e.error_kind}: ${cell(e.error_message ?? '')}` : ''}`);
          },
          stop.signal,
        );
        if (!stop.signal.aborted) throw new CliError('the server ended the event stream (stopping?)', EXIT.unreachable);
      } finally {
        process.off('SIGINT', onSignal);
        process.off('SIGTERM', onSignal);
      }
    });

  runs
    .command('show <id>')
    .description('show one run: status, attempts, error, what it did, its history')
    .action(async (id: string) => {
      const run = await ctx.client().get<WireRun>(apiPath(['hook-runs', id]));
      ctx.emit(run, () => {
        const { history, ...rest } = run;
        printRecord(rest);
        if (Array.isArray(history) && history.length > 0) {
          say('history:');
          for (const h of history as { at: string; attempt: number; event: string; detail?: string }[]) {
            say(`  ${h.at}  #${h.attempt}  ${h.event}${h.detail ? `  ${cell(h.detail)}` : ''}`);
          }
        }
      });
    });

  runs
    .command('retry <id>')
    .description('run a failed run again (operator); refused (409) for a run that is not failed or whose hook committed a resume or take')
    .action(async (id: string) => {
      const run = await ctx.client().post<WireRun>(apiPath(['hook-runs', id, 'retry']));
      ctx.emit(run, () => say(`run ${run.id} of hook ${run.hook} is ${run.status} again`));
    });

  runs
    .command('discard <id>')
    .description('discard a run (operator): it never runs again and is kept until retention')
    .action(async (id: string) => {
      const run = await ctx.client().delete<WireRun>(apiPath(['hook-runs', id]));
      ctx.emit(run, () => say(`run ${run.id} of hook ${run.hook} is ${run.status}`));
    });
}
