import type { Command } from 'commander';
import type { AnswerOf, listAudit } from '@hookyard/api';
import { CliError, EXIT, apiPath } from '../client';
import type { CliContext } from '../context';
import { printTable, say } from '../output';
import { timeOption } from './runs';

type AuditPage = AnswerOf<typeof listAudit>;

interface AuditOptions {
  action?: string;
  actor?: string;
  target?: string;
  since?: string;
  until?: string;
  limit?: string;
  cursor?: string;
  all?: boolean;
}

/** The server's page bounds (`GET /api/audit?limit=`). */
const MAX_LIMIT = 500;
/** `--all` stops after this many pages rather than loop forever on a server that keeps answering a cursor. */
const MAX_PAGES = 1_000;

function auditQuery(opts: AuditOptions, cursor: string | undefined): URLSearchParams {
  const q = new URLSearchParams();
  for (const k of ['action', 'actor', 'target', 'limit'] as const) if (opts[k] !== undefined) q.set(k, opts[k]);
  if (opts.since !== undefined) q.set('since', timeOption('--since', opts.since));
  if (opts.until !== undefined) q.set('until', timeOption('--until', opts.until));
  if (cursor !== undefined) q.set('cursor', cursor);
  return q;
}

/**
 * `hookyard audit` over `GET /api/audit` (admin): the audit trail, newest
 * first, one page (or every page with --all); `--json` prints the answer as
 * the API gives it, before and after included.
 */
export function auditCommand(program: Command, ctx: CliContext): void {
  program
    .command('audit')
    .description('the audit trail (admin): who changed what, when and from where, newest first')
    .option('--action <action>', 'only one action (hook.register) or a family (hook.*)')
    .option('--actor <actor>', 'only one actor: a label (operator:1a2b3c4d, agent:ci-bot), a role (admin), or link')
    .option('--target <target>', 'only changes of one target (a hook or tool name, a run or interaction id, a topic)')
    .option('--since <time>', 'only entries at or after: ISO 8601, or a span back from now (30m, 2h, 7d)')
    .option('--until <time>', 'only entries at or before: ISO 8601, or a span back from now')
    .option('--limit <n>', `page size, 1-${MAX_LIMIT} (server default 50)`)
    .option('--cursor <cursor>', 'the next_cursor of the previous page')
    .option('--all', 'follow next_cursor to the last page and print every entry')
    .addHelpText('after', '\nExamples:\n  hookyard audit\n  hookyard audit --action hook.* --since 7d\n  hookyard audit --actor admin --json')
    .action(async (opts: AuditOptions) => {
      if (opts.limit !== undefined && !(/^\d{1,4}$/.test(opts.limit) && Number(opts.limit) >= 1 && Number(opts.limit) <= MAX_LIMIT)) {
        throw new CliError(`--limit must be a whole number from 1 to ${MAX_LIMIT}, got ${JSON.stringify(opts.limit)}`, EXIT.usage);
      }
      if (opts.all && opts.cursor !== undefined) throw new CliError('give either --all or --cursor, not both', EXIT.usage);
      const client = ctx.client();
      let page = await client.get<AuditPage>(apiPath(['audit'], auditQuery(opts, opts.cursor)));
      if (opts.all) {
        const all = [...page.entries];
        for (let n = 1; page.next_cursor && n < MAX_PAGES; n++) {
          page = await client.get<AuditPage>(apiPath(['audit'], auditQuery(opts, page.next_cursor)));
          all.push(...page.entries);
        }
        page = { ...page, entries: all };
      }
      const res = page;
      ctx.emit(res, () => {
        printTable(
          res.entries.map((e) => ({ at: e.at, actor: e.actor.label, action: e.action, target: e.target ?? '', status: e.status, client: e.client })),
          ['at', 'actor', 'action', 'target', 'status', 'client'],
        );
        if (res.next_cursor) say(`more: hookyard audit --cursor ${res.next_cursor} (or --all)`);
      });
    });
}
