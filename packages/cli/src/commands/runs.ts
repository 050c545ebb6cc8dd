import type { Command } from 'commander';
import { RUN_STATUSES } from '@hookyard/core';
import { CliError, EXIT } from '../client';
import { printJson, printRecord, printTable } from '../output';
import type { CliContext } from '../context';

export function runsCommand(program: Command, ctx: CliContext): void {
  const runs = program.command('runs').description('list, show, retry and discard kept runs');

  runs
    .command('list')
    .description('list runs, newest first')
    .option('--status <status>', `one of ${RUN_STATUSES.join(', ')}`)
    .option('--hook <name>', 'runs of one hook')
    .option('--topic <topic>', 'runs on one topic')
    .option('--limit <n>', 'page size (1-500)', '50')
    .option('--cursor <cursor>', 'next_cursor of the previous page')
    .action(async (opts: { status?: string; hook?: string; topic?: string; limit: string; cursor?: string }) => {
      if (opts.status && !(RUN_STATUSES as readonly string[]).includes(opts.status)) {
        throw new CliError(`--status must be one of ${RUN_STATUSES.join(', ')}, got ${JSON.stringify(opts.status)}`, EXIT.usage);
      }
      const q = new URLSearchParams();
      for (const k of ['status', 'hook', 'topic', 'limit', 'cursor'] as const) if (opts[k]) q.set(k, String(opts[k]));
      const res = await ctx.client().call<{ runs: Record<string, unknown>[]; next_cursor: string | null }>('GET', `api/hook-runs?${q}`);
      if (ctx.json()) return printJson(res);
      printTable(
        res.runs.map((r) => ({ ...r, error: r.error ? `${(r.error as { kind: string }).kind}: ${(r.error as { message: string }).message}` : '' })),
        ['id', 'hook', 'topic', 'status', 'attempts', 'acted', 'created_at', 'error'],
      );
      if (res.next_cursor) process.stdout.write(`next page: --cursor ${res.next_cursor}\n`);
    });

  runs
    .command('show <id>')
    .description('show one run: status, attempts, error, what it did, its history')
    .action(async (id: string) => {
      const res = await ctx.client().call<Record<string, unknown>>('GET', `api/hook-runs/${encodeURIComponent(id)}`);
      if (ctx.json()) return printJson(res);
      const run = (res.run as Record<string, unknown>) ?? res;
      const { history, ...rest } = run;
      printRecord(rest);
      if (Array.isArray(history) && history.length > 0) {
        process.stdout.write('history:\n');
        for (const h of history as { at: string; attempt: number; event: string; detail?: string }[]) {
          process.stdout.write(`  ${h.at}  #${h.attempt}  ${h.event}${h.detail ? `  ${h.detail}` : ''}\n`);
        }
      }
    });

  runs
    .command('retry <id>')
    .description('run a failed run again (refused for a run whose hook committed a resume or take)')
    .action(async (id: string) => {
      const res = await ctx.client().call<Record<string, unknown>>('POST', `api/hook-runs/${encodeURIComponent(id)}/retry`);
      if (ctx.json()) return printJson(res);
      process.stdout.write(`run ${id} is due again\n`);
    });

  runs
    .command('discard <id>')
    .description('discard a run (kept until retention, never run again)')
    .action(async (id: string) => {
      const res = await ctx.client().call<Record<string, unknown>>('DELETE', `api/hook-runs/${encodeURIComponent(id)}`);
      if (ctx.json()) return printJson(res);
      process.stdout.write(`run ${id} discarded\n`);
    });
}
