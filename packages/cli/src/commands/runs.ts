import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type {
  AnswerOf,
  RequestOf,
  RunEventData,
  discardRun,
  getDelivery,
  getRun,
  listFailureGroups,
  listRuns,
  replayRun,
  resolveRun,
  retryRun,
  retryRuns,
} from '@hookyard/api';
import { ERROR_KINDS, FINGERPRINT_PATTERN, RUN_EVENT_TYPES, RUN_STATUSES } from '@hookyard/core';
import { CliError, EXIT, apiPath } from '../client';
import { cell, printRecord, printTable, say } from '../output';
import type { CliContext } from '../context';
import { warnUnknownHook } from '../hook-filter';

// The answers' shapes are the API's declarations (@hookyard/api), never copied here.
type WireRun = AnswerOf<typeof getRun>;
type RunPage = AnswerOf<typeof listRuns>;
/** With `--where`: how far the server read (`GET /api/hook-runs?where=`); cut: runs were left unread. */
type ScanReport = NonNullable<RunPage['scan']>;

/** The server's bound on runs read per `--where` request. */
const MAX_SCAN = 5000;

/** The server's page bounds (`GET /api/hook-runs?limit=`). */
const MAX_LIMIT = 500;
/** `--all` stops after this many pages rather than loop forever on a server that keeps answering a cursor. */
const MAX_PAGES = 10_000;

interface ListOptions extends FilterOptions {
  limit?: string;
  cursor?: string;
  all?: boolean;
  where?: string;
  scan?: string;
}

/** The run filter every list and bulk command shares. */
export interface FilterOptions {
  status?: string;
  hook?: string;
  agent?: string;
  topic?: string;
  deliveryId?: string;
  since?: string;
  until?: string;
  kind?: string;
  fingerprint?: string;
}

const UNIT_MS: Record<string, number> = { s: 1000, m: 60_000, h: 3_600_000, d: 86_400_000 };

/**
 * `--since`/`--until`: an ISO 8601 time as the server reads it, or a span back
 * from now (`30m`, `2h`, `7d`), sent as the ISO time it names.
 */
export function timeOption(option: string, raw: string, now = Date.now()): string {
  const span = /^(\d{1,6})([smhd])$/.exec(raw.trim());
  if (span) return new Date(now - Number(span[1]) * UNIT_MS[span[2]!]!).toISOString();
  if (/^\d{4}-\d{2}-\d{2}/.test(raw.trim())) return raw.trim();
  throw new CliError(`${option} must be an ISO 8601 time (2026-01-31T12:00:00Z) or a span back from now (30m, 2h, 7d), got ${JSON.stringify(raw)}`, EXIT.usage);
}

/** The filter as query parameters (`GET /api/hook-runs`). */
export function filterQuery(opts: FilterOptions): URLSearchParams {
  const q = new URLSearchParams();
  for (const k of ['status', 'hook', 'agent', 'topic'] as const) if (opts[k] !== undefined) q.set(k, opts[k]);
  if (opts.deliveryId !== undefined) q.set('delivery_id', opts.deliveryId);
  if (opts.since !== undefined) q.set('since', timeOption('--since', opts.since));
  if (opts.until !== undefined) q.set('until', timeOption('--until', opts.until));
  for (const k of ['kind', 'fingerprint'] as const) if (opts[k] !== undefined) q.set(k, opts[k]);
  return q;
}

function listQuery(opts: ListOptions, cursor: string | undefined): URLSearchParams {
  const q = filterQuery(opts);
  if (opts.limit !== undefined) q.set('limit', opts.limit);
  if (opts.where !== undefined) q.set('where', opts.where);
  if (opts.scan !== undefined) q.set('scan', opts.scan);
  if (cursor !== undefined) q.set('cursor', cursor);
  return q;
}

/** Adds the shared filter options to a command. */
export function withFilterOptions(cmd: Command): Command {
  return cmd
    .option('--status <status>', `only runs in one state: ${RUN_STATUSES.join(', ')}`)
    .option('--hook <name>', 'only the runs of one hook')
    .option('--agent <name>', "only an agent's calls (not with --hook)")
    .option('--topic <topic>', 'only the runs on one topic')
    .option('--delivery-id <id>', "only the runs of one delivery (the sender's delivery id)")
    .option('--since <time>', 'only runs created at or after: ISO 8601, or a span back from now (30m, 2h, 7d)')
    .option('--until <time>', 'only runs created at or before: ISO 8601, or a span back from now')
    .option('--kind <kind>', `only runs whose error is of one kind: ${ERROR_KINDS.join(', ')}`)
    .option('--fingerprint <fp>', 'only runs whose error message has this fingerprint (a group of `hookyard runs failures`)');
}

/** `--kind` and `--fingerprint` checked before anything is asked, so a typo is a usage error, not an empty list. */
function checkErrorOptions(opts: Pick<FilterOptions, 'kind' | 'fingerprint'>): void {
  if (opts.kind !== undefined && !(ERROR_KINDS as readonly string[]).includes(opts.kind)) {
    throw new CliError(`--kind must be one of ${ERROR_KINDS.join(', ')}, got ${JSON.stringify(opts.kind)}`, EXIT.usage);
  }
  if (opts.fingerprint !== undefined && !FINGERPRINT_PATTERN.test(opts.fingerprint)) {
    throw new CliError(`--fingerprint must be 16 lowercase hex characters (from hookyard runs failures), got ${JSON.stringify(opts.fingerprint)}`, EXIT.usage);
  }
}

function checkListOptions(opts: ListOptions): void {
  checkErrorOptions(opts);
  if (opts.status !== undefined && !(RUN_STATUSES as readonly string[]).includes(opts.status)) {
    throw new CliError(`--status must be one of ${RUN_STATUSES.join(', ')}, got ${JSON.stringify(opts.status)}`, EXIT.usage);
  }
  if (opts.limit !== undefined && !(/^\d{1,4}$/.test(opts.limit) && Number(opts.limit) >= 1 && Number(opts.limit) <= MAX_LIMIT)) {
    throw new CliError(`--limit must be a whole number from 1 to ${MAX_LIMIT}, got ${JSON.stringify(opts.limit)}`, EXIT.usage);
  }
  if (opts.all && opts.cursor !== undefined) throw new CliError('give either --all or --cursor, not both', EXIT.usage);
  if (opts.where !== undefined && opts.where.trim() === '') throw new CliError('--where must be a jq expression, got ""', EXIT.usage);
  if (opts.scan !== undefined) {
    if (opts.where === undefined) throw new CliError('--scan bounds a --where search: give --where with it', EXIT.usage);
    if (!(/^\d{1,4}$/.test(opts.scan) && Number(opts.scan) >= 1 && Number(opts.scan) <= MAX_SCAN)) {
      throw new CliError(`--scan must be a whole number from 1 to ${MAX_SCAN}, got ${JSON.stringify(opts.scan)}`, EXIT.usage);
    }
  }
}

/** The scans of several pages as one account (`--all`): totals, cut as the last page's. */
function addScans(a: ScanReport | undefined, b: ScanReport | undefined): ScanReport | undefined {
  if (!a || !b) return a ?? b;
  return {
    scanned: a.scanned + b.scanned,
    matched: a.matched + b.matched,
    cut: b.cut,
    errors: a.errors + b.errors,
    ...((a.first_error ?? b.first_error) ? { first_error: a.first_error ?? b.first_error } : {}),
  };
}

/** The shell-quoted form of an argument, for the "continue with" line. */
function shellQuote(s: string): string {
  return /^[A-Za-z0-9_./:=@-]+$/.test(s) ? s : `'${s.replaceAll("'", `'\\''`)}'`;
}

/** The server's window bound (`GET /api/hook-runs/failures?window=`). */
const FAILURES_WINDOW_MAX = 5000;

interface FailuresOptions extends Pick<FilterOptions, 'hook' | 'agent' | 'kind' | 'fingerprint' | 'since'> {
  window?: string;
  limit?: string;
}

/** What `GET /api/hook-runs/failures` answers. */
type FailuresAnswer = AnswerOf<typeof listFailureGroups>;

interface BulkOptions extends FilterOptions {
  yes?: boolean;
  dryRun?: boolean;
}

/** A bulk retry's or discard's answer (the same declared shape for both). */
type BulkAnswer = AnswerOf<typeof retryRuns>;

const FILTER_FLAGS: Record<keyof FilterOptions, string> = {
  status: '--status',
  hook: '--hook',
  agent: '--agent',
  topic: '--topic',
  deliveryId: '--delivery-id',
  since: '--since',
  until: '--until',
  kind: '--kind',
  fingerprint: '--fingerprint',
};

function refuseFilterWithId(verb: string, opts: BulkOptions): void {
  const given = (Object.keys(FILTER_FLAGS) as (keyof FilterOptions)[]).filter((k) => opts[k] !== undefined).map((k) => FILTER_FLAGS[k]);
  if (given.length || opts.yes || opts.dryRun) {
    throw new CliError(
      `runs ${verb}: give either a run id or a filter (${[...given, ...(opts.yes ? ['--yes'] : []), ...(opts.dryRun ? ['--dry-run'] : [])].join(', ')}), not both`,
      EXIT.usage,
    );
  }
}

/** The filter as the bulk routes read it (`{filter: {...}}`), times resolved. */
function bulkFilter(opts: FilterOptions): Record<string, string> {
  return Object.fromEntries(filterQuery(opts));
}

/** Asks on the terminal; true only for an explicit yes. */
async function confirm(question: string): Promise<boolean> {
  const { createInterface } = await import('node:readline/promises');
  const rl = createInterface({ input: process.stdin, output: process.stderr });
  try {
    return /^y(es)?$/i.test((await rl.question(question)).trim());
  } finally {
    rl.close();
  }
}

/**
 * `runs retry|discard` with a filter: count first (a dry run), then act once
 * confirmed: `--yes`, or a "y" on the terminal. Without a terminal and without
 * `--yes` nothing changes (exit 2).
 */
async function bulkCommand(ctx: CliContext, verb: 'retry' | 'discard', opts: BulkOptions): Promise<void> {
  if (opts.status === undefined) {
    throw new CliError(`runs ${verb}: give a run id, or a filter with --status (e.g. --status failed)`, EXIT.usage);
  }
  if (opts.status !== undefined && !(RUN_STATUSES as readonly string[]).includes(opts.status)) {
    throw new CliError(`--status must be one of ${RUN_STATUSES.join(', ')}, got ${JSON.stringify(opts.status)}`, EXIT.usage);
  }
  checkErrorOptions(opts);
  const filter = bulkFilter(opts);
  const client = ctx.client();
  const path = apiPath(['hook-runs', verb]);
  const count = await client.post<BulkAnswer>(path, { filter, dry_run: true });
  const what = `${count.matched}${count.truncated ? '+' : ''} run${count.matched === 1 ? '' : 's'}`;
  const again = count.tool_called_again ?? 0;
  // Said before any confirmation (with --json, the answer's tool_called_again says it).
  if (verb === 'retry' && again > 0 && !ctx.json()) {
    say(`warning: ${again} of them already called their tool; the retry calls it again (each with its run id as the idempotency key)`);
  }
  if (opts.dryRun || count.matched === 0) {
    return ctx.emit(count, () => say(count.matched === 0 ? `no runs match; nothing to ${verb}` : `${what} match; nothing changed (--dry-run)`));
  }
  if (!opts.yes) {
    if (!process.stdin.isTTY) throw new CliError(`${what} match; pass --yes to ${verb} them (no terminal to ask)`, EXIT.usage);
    if (!(await confirm(`${verb} ${what}? [y/N] `))) throw new CliError(`not confirmed; nothing changed`, EXIT.usage);
  }
  const res = await client.post<BulkAnswer>(path, { filter });
  ctx.emit(res, () => {
    say(
      `${verb === 'retry' ? 'retried' : 'discarded'} ${res.retried ?? res.discarded ?? 0} of ${res.matched} matching run${res.matched === 1 ? '' : 's'}; ${res.refused} refused`,
    );
    for (const r of res.refusals) say(`  ${r.id}: ${r.message}`);
    if (res.truncated) say(`more runs match than one call acts on; run it again`);
  });
}

/** One line per run for people; the error as `kind: message`. */
function runRow(r: { error: { kind: string; message: string } | null }): Record<string, unknown> {
  const e = r.error;
  return { ...r, error: e ? `${e.kind}: ${e.message}` : '' };
}

/**
 * `hookyard runs ...` over `GET /api/hook-runs`, `GET /api/hook-runs/failures`,
 * `GET/DELETE /api/hook-runs/{id}` and `POST /api/hook-runs/{id}/retry`. Answers: list
 * `{runs, next_cursor}`; failures `{groups, group_count, window}`; show, retry and discard the bare run.
 */
export function runsCommand(program: Command, ctx: CliContext): void {
  const runs = program.command('runs').description('list, show, retry, discard and resolve kept runs');

  withFilterOptions(runs.command('list').description('list runs, newest first, one page (or every page with --all)'))
    .option('--limit <n>', `page size, 1-${MAX_LIMIT} (server default 50)`)
    .option('--cursor <cursor>', 'the next_cursor of the previous page')
    .option('--all', 'follow next_cursor to the last page and print every run')
    .option(
      '--where <jq>',
      'only runs this jq filter matches, evaluated on {payload, result, error, hook, topic, status, door, verified, delivery_id, event_id, attempts, created_at}; the server reads a bounded window per request (see --scan) and says when it was cut',
    )
    .option('--scan <n>', `with --where: the most runs one request reads, 1-${MAX_SCAN} (default ${MAX_SCAN})`)
    .addHelpText(
      'after',
      '\nExamples:\n  hookyard runs list --status failed\n  hookyard runs list --hook greet --all --json\n  hookyard runs list --delivery-id 72d3162e-cc78-11e3-81ab-4c9367dc0958\n  hookyard runs list --status failed --since 2h\n  hookyard runs list --where \'.payload.repository.full_name == "acme/api"\' --all',
    )
    .action(async (opts: ListOptions) => {
      checkListOptions(opts);
      const client = ctx.client();
      let page = await client.get<RunPage>(apiPath(['hook-runs'], listQuery(opts, opts.cursor)));
      if (opts.all) {
        const all = [...page.runs];
        for (let n = 1; page.next_cursor && n < MAX_PAGES; n++) {
          const next: RunPage = await client.get<RunPage>(apiPath(['hook-runs'], listQuery(opts, page.next_cursor)));
          all.push(...next.runs);
          page = { ...next, scan: addScans(page.scan, next.scan) };
        }
        page = { runs: all, next_cursor: page.next_cursor, ...(page.scan ? { scan: { ...page.scan, matched: all.length } } : {}) };
      }
      const res = page;
      // Nothing listed under a --hook filter: a misspelt hook name looks like "no runs yet" otherwise.
      if (res.runs.length === 0) await warnUnknownHook(client, opts.hook);
      ctx.emit(res, () => {
        printTable(res.runs.map(runRow), ['id', 'hook', 'topic', 'status', 'attempts', 'acted', 'created_at', 'error']);
        const scan = res.scan;
        if (scan) {
          say(
            `searched ${scan.scanned} run${scan.scanned === 1 ? '' : 's'}: ${scan.matched} matched${scan.cut ? '; the window was cut before the end of the runs' : ''}`,
          );
          if (scan.errors)
            say(
              `the expression raised a jq error on ${scan.errors} run${scan.errors === 1 ? '' : 's'} (no match), first on ${scan.first_error?.run}: ${scan.first_error?.message}`,
            );
        }
        if (res.next_cursor) {
          const again = opts.where === undefined ? '' : ` --where ${shellQuote(opts.where)}`;
          say(`more: hookyard runs list${again} --cursor ${res.next_cursor} (or --all)`);
        }
      });
    });

  runs
    .command('failures')
    .description('failed runs grouped by cause: hook, error kind and message fingerprint (numbers, ids, addresses masked), most runs first')
    .option('--hook <name>', 'only the failures of one hook')
    .option('--agent <name>', "only an agent's calls (not with --hook)")
    .option('--kind <kind>', `only failures of one error kind: ${ERROR_KINDS.join(', ')}`)
    .option('--fingerprint <fp>', 'only one fingerprint')
    .option('--since <time>', 'only runs created at or after: ISO 8601, or a span back from now (30m, 2h, 7d)')
    .option('--window <n>', `how many of the newest failed runs to scan, 1-${FAILURES_WINDOW_MAX} (default ${FAILURES_WINDOW_MAX})`)
    .option('--limit <n>', 'groups shown, 1-500 (server default 50)')
    .addHelpText(
      'after',
      '\nAct on one group with the bulk verbs and its filter:\n  hookyard runs retry --status failed --hook <hook> --kind <kind> --fingerprint <fp>\n  hookyard runs discard --status failed --hook <hook> --kind <kind> --fingerprint <fp>\n\nExamples:\n  hookyard runs failures\n  hookyard runs failures --hook greet --since 24h --json',
    )
    .action(async (opts: FailuresOptions) => {
      checkErrorOptions(opts);
      if (opts.window !== undefined && !(/^\d{1,5}$/.test(opts.window) && Number(opts.window) >= 1 && Number(opts.window) <= FAILURES_WINDOW_MAX)) {
        throw new CliError(`--window must be a whole number from 1 to ${FAILURES_WINDOW_MAX}, got ${JSON.stringify(opts.window)}`, EXIT.usage);
      }
      const q = filterQuery({ hook: opts.hook, agent: opts.agent, kind: opts.kind, fingerprint: opts.fingerprint, since: opts.since });
      if (opts.window !== undefined) q.set('window', opts.window);
      if (opts.limit !== undefined) q.set('limit', opts.limit);
      const client = ctx.client();
      const res = await client.get<FailuresAnswer>(apiPath(['hook-runs', 'failures'], q));
      if (res.groups.length === 0) await warnUnknownHook(client, opts.hook);
      ctx.emit(res, () => {
        printTable(
          res.groups.map((g) => ({ ...g, hook: g.agent === null ? g.hook : `agent ${g.agent}` })),
          ['count', 'hook', 'kind', 'fingerprint', 'last_seen', 'first_seen', 'sample_run', 'pattern'],
        );
        const w = res.window;
        say(
          `${res.group_count} group${res.group_count === 1 ? '' : 's'} in the newest ${w.scanned} failed run${w.scanned === 1 ? '' : 's'}` +
            (w.cut ? `; older failed runs were not scanned (window ${w.max}, kept since ${w.oldest ?? '-'})` : ''),
        );
        const first = res.groups[0];
        if (first) {
          const who = first.agent === null ? `--hook ${first.hook}` : `--agent ${first.agent}`;
          say(`retry the top group: hookyard runs retry --status failed ${who} --kind ${first.kind} --fingerprint ${first.fingerprint}`);
        }
      });
    });

  runs
    .command('tail')
    .description('follow run events as they happen (GET /api/events): accepted, started, parked, retries, outcomes, one line each, until interrupted')
    .option('--status <status>', `only events that leave a run in one state: ${RUN_STATUSES.join(', ')}`)
    .option('--hook <name>', 'only the runs of one hook')
    .option('--topic <topic>', 'only the runs on one topic')
    .option('--event <types>', `only these event types, comma-separated: ${RUN_EVENT_TYPES.join(', ')}`)
    .addHelpText(
      'after',
      '\nWith --json, one run summary (the hooks.events.run.* JSON) per line.\n\nExamples:\n  hookyard runs tail\n  hookyard runs tail --event finished\n  hookyard runs tail --status failed --json',
    )
    .action(async (opts: Pick<ListOptions, 'status' | 'hook' | 'topic'> & { event?: string }) => {
      checkListOptions(opts);
      const unknown = opts.event === undefined ? [] : opts.event.split(',').filter((e) => !(RUN_EVENT_TYPES as readonly string[]).includes(e));
      if (opts.event !== undefined && (opts.event === '' || unknown.length)) {
        throw new CliError(`--event must be one or more (comma-separated) of ${RUN_EVENT_TYPES.join(', ')}, got ${JSON.stringify(opts.event)}`, EXIT.usage);
      }
      const q = new URLSearchParams();
      for (const k of ['status', 'hook', 'topic', 'event'] as const) if (opts[k] !== undefined) q.set(k, opts[k]);
      await warnUnknownHook(ctx.client(), opts.hook);
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
            // A run event as declared (RunEvent); `event` and `at` may be absent from an older server.
            const e = JSON.parse(data) as Partial<Pick<RunEventData, 'event' | 'at'>> & Omit<RunEventData, 'event' | 'at'>;
            const what = `${(e.event ?? 'finished').padEnd(15)}  ${e.status.padEnd(10)}`;
            const due = e.due_at ? `  due ${e.due_at}` : '';
            say(
              `${e.at ?? e.finished_at ?? '-'}  ${what}  ${e.hook}  ${e.topic}  ${e.run_id}  attempts=${e.attempts}${e.error_kind ? `  ${e.error_kind}: ${cell(e.error_message ?? '')}` : ''}${due}`,
            );
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
    .command('event <event_id>')
    .description("one delivery and the runs it became (GET /api/deliveries/{event_id}); a run's event_id, or the door's answer, names it")
    .action(async (eventId: string) => {
      const event = await ctx.client().get<AnswerOf<typeof getDelivery>>(apiPath(['deliveries', eventId]));
      ctx.emit(event, () => {
        const { runs: eventRuns, ...rest } = event;
        printRecord(rest);
        say('runs:');
        printTable(eventRuns.map(runRow), ['id', 'hook', 'status', 'attempts', 'acted', 'finished_at', 'error']);
      });
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
          for (const h of history) {
            say(`  ${h.at}  #${h.attempt}  ${h.event}${h.detail ? `  ${cell(h.detail)}` : ''}`);
          }
        }
        if (run.status === 'failed' && run.error?.kind === 'outcome_unknown') {
          say(`its outcome is unknown (the tool may have acted): check what it did, then`);
          say(`  hookyard runs resolve ${run.id} --succeeded [--result JSON] | --failed --reason TEXT [--note TEXT]`);
        }
      });
    });

  withFilterOptions(
    runs
      .command('retry [id]')
      .description('run a failed run again, or every failed run a filter matches (operator); refused (409) for a run whose hook committed a resume or take'),
  )
    .option('--yes', 'act on every matching run without asking')
    .option('--dry-run', 'only count the runs the filter matches')
    .addHelpText(
      'after',
      '\nExamples:\n  hookyard runs retry 0mhx5d3k0000a1b2c3d40100\n  hookyard runs retry --status failed --hook greet --since 2h --yes\n  hookyard runs retry --status failed --hook greet --kind unavailable --fingerprint 3f1c0e9a7b2d4c68 --yes',
    )
    .action(async (id: string | undefined, opts: BulkOptions) => {
      if (id === undefined) return bulkCommand(ctx, 'retry', opts);
      refuseFilterWithId('retry', opts);
      const run = await ctx.client().post<RetriedRun>(apiPath(['hook-runs', id, 'retry']));
      ctx.emit(run, () => {
        say(`run ${run.id} of hook ${run.hook} is ${run.status} again`);
        const again = run.tool_called_again;
        if (again) say(toolCalledAgainWarning(again));
      });
    });

  withFilterOptions(
    runs.command('discard [id]').description('discard a run, or every run a filter matches (operator): they never run again and are kept until retention'),
  )
    .option('--yes', 'act on every matching run without asking')
    .option('--dry-run', 'only count the runs the filter matches')
    .addHelpText('after', '\nExamples:\n  hookyard runs discard 0mhx5d3k0000a1b2c3d40100\n  hookyard runs discard --status failed --topic demo --yes')
    .action(async (id: string | undefined, opts: BulkOptions) => {
      if (id === undefined) return bulkCommand(ctx, 'discard', opts);
      refuseFilterWithId('discard', opts);
      const run = await ctx.client().delete<AnswerOf<typeof discardRun>>(apiPath(['hook-runs', id]));
      ctx.emit(run, () => say(`run ${run.id} of hook ${run.hook} is ${run.status}`));
    });

  runs
    .command('resolve <id>')
    .description(
      'record what a run with an unknown outcome did (operator): its tool started, the attempt was interrupted, and it may have acted (error kind outcome_unknown)',
    )
    .option('--succeeded', 'the tool acted: the run ends succeeded (with --result)')
    .option('--failed', 'the tool did not act, or failed: the run stays failed with your --reason (not retryable)')
    .option('--result <json>', 'with --succeeded: the result as JSON text (default null)')
    .option('--reason <text>', 'with --failed (required): what you found')
    .option('--note <text>', "what you checked, kept in the run's history with your name")
    .addHelpText(
      'after',
      '\nExamples:\n  hookyard runs resolve 0mhx5d3k0000a1b2c3d40100 --succeeded --result \'{"deployed": "v2"}\' --note "saw it in the deploy log"\n' +
        '  hookyard runs resolve 0mhx5d3k0000a1b2c3d40100 --failed --reason "the deploy never reached prod"',
    )
    .action(async (id: string, opts: ResolveOptions) => {
      const run = await ctx.client().post<AnswerOf<typeof resolveRun>>(apiPath(['hook-runs', id, 'resolve']), resolveBody(opts));
      ctx.emit(run, () => {
        const why = run.status === 'failed' && run.error ? `: ${run.error.message}` : '';
        say(`run ${run.id} of hook ${run.hook} is resolved ${run.status}${why}`);
      });
    });

  runs
    .command('replay <id>')
    .description("run an ended run's event again as a new run of the hook as registered now (operator); the new run records replay_of")
    .option('--payload <file|->', "replay with this payload instead of the kept one: a JSON object's file, or - for stdin")
    .addHelpText('after', '\nExamples:\n  hookyard runs replay 0mhx5d3k0000a1b2c3d40100\n  hookyard runs replay 0mhx5d3k0000a1b2c3d40100 --payload fixed.json')
    .action(async (id: string, opts: { payload?: string }) => {
      const body = opts.payload === undefined ? undefined : { payload: readPayload(opts.payload) };
      const run = await ctx.client().post<AnswerOf<typeof replayRun, 201>>(apiPath(['hook-runs', id, 'replay']), body);
      ctx.emit(run, () => say(`run ${run.id} of hook ${run.hook} replays run ${id}${body ? ' with an edited payload' : ''}: ${run.status}`));
    });
}

type RetriedRun = AnswerOf<typeof retryRun>;

interface ResolveOptions {
  succeeded?: boolean;
  failed?: boolean;
  result?: string;
  reason?: string;
  note?: string;
}

/** The resolve body of `runs resolve`'s flags: one of --succeeded / --failed, each with its own fields. */
export function resolveBody(opts: ResolveOptions): RequestOf<typeof resolveRun>['body'] {
  if (opts.succeeded === opts.failed) throw new CliError('give one of --succeeded or --failed: what you found the tool did', EXIT.usage);
  const note = opts.note === undefined ? {} : { note: opts.note };
  if (opts.failed) {
    if (opts.result !== undefined) throw new CliError('--result goes with --succeeded; a failed verdict carries --reason', EXIT.usage);
    if (!opts.reason?.trim()) throw new CliError('--failed needs --reason: say what you found the tool did (or did not do)', EXIT.usage);
    return { outcome: 'failed', reason: opts.reason, ...note };
  }
  if (opts.reason !== undefined) throw new CliError('--reason goes with --failed; a succeeded verdict carries --result', EXIT.usage);
  if (opts.result === undefined) return { outcome: 'succeeded', ...note };
  let result: unknown;
  try {
    result = JSON.parse(opts.result) as unknown;
  } catch (err) {
    throw new CliError(`--result must be JSON text (${(err as Error).message}), got ${JSON.stringify(opts.result.slice(0, 80))}`, EXIT.usage);
  }
  return { outcome: 'succeeded', result, ...note };
}

/** The retry answer's warning for a run whose tool had been called: it is called again, with the same key. */
export function toolCalledAgainWarning(again: { idempotency_key: string; extra: string }): string {
  return `warning: its tool was already called; the retry calls it again (once the approval policy allows it) with idempotency key ${again.idempotency_key} (extra ${again.extra})`;
}

/** `--payload <file|->`: the text as given (the server checks it is a JSON object within the door's body limit). */
function readPayload(file: string): string {
  try {
    return readFileSync(file === '-' ? 0 : file, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read --payload ${file}: ${(err as Error).message}`, EXIT.usage);
  }
}
