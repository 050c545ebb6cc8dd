import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { AnswerOf, deleteState, getState, listStates, putState } from '@hookyard/api';
import { NAME_PATTERN, NAME_PATTERN_SOURCE } from '@hookyard/core';
import { CliError, EXIT, apiPath, parseJsonOption } from '../client';
import { printTable, say } from '../output';
import type { CliContext } from '../context';
import { stateDeclarationCommands } from './states-declarations';

type Attribution = AnswerOf<typeof listStates>['states'][number]['updated_by'];

const MAX_LIMIT = 500;
const MAX_PAGES = 10_000;

/** Who wrote, in one cell: `hook ci-status run <id>` or `api operator:ab12cd34`. */
const writer = (a: Attribution) => (a.door === 'hook' ? `hook ${a.hook ?? '?'} run ${a.actor}` : `api ${a.actor}`);
const label = (s: { scope: string; kind: string; key: string }) => `${s.scope}/${s.kind}/${JSON.stringify(s.key)}`;

function name(option: string, value: string): string {
  if (!NAME_PATTERN.test(value)) throw new CliError(`${option} ${JSON.stringify(value)} must match ${NAME_PATTERN_SOURCE}`, EXIT.usage);
  return value;
}

function version(raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  if (!/^\d{1,15}$/.test(raw)) throw new CliError(`--if-version must be a whole number >= 0 (0: no document yet), got ${JSON.stringify(raw)}`, EXIT.usage);
  return Number(raw);
}

/** The document from `--document JSON` or `--file PATH` (`-` reads stdin); exactly one, a JSON object. */
function readDocument(opts: { document?: string; file?: string }): Record<string, unknown> {
  if ((opts.document === undefined) === (opts.file === undefined))
    throw new CliError('give the document as --document JSON or --file PATH (- for stdin), one of the two', EXIT.usage);
  let doc: unknown;
  if (opts.file !== undefined) {
    let raw: string;
    try {
      raw = readFileSync(opts.file === '-' ? 0 : opts.file, 'utf8');
    } catch (err) {
      throw new CliError(`cannot read --file ${opts.file}: ${(err as Error).message}`, EXIT.usage);
    }
    doc = parseJsonOption(`--file ${opts.file}`, raw);
  } else doc = parseJsonOption('--document', opts.document!);
  if (doc === null || typeof doc !== 'object' || Array.isArray(doc)) throw new CliError('the document must be a JSON object', EXIT.usage);
  return doc as Record<string, unknown>;
}

/**
 * `hookyard states ...` over `GET /api/states`, `GET/PUT/DELETE
 * /api/states/{scope}/{kind}/{key}`. Answers: list `{states, next_cursor}`;
 * show and set the state record; delete `{deleted, scope, kind, key, version}`.
 */
export function statesCommand(program: Command, ctx: CliContext): void {
  const cmd = program
    .command('states')
    .description("list, show, set or delete subject state (a hook's subject keys one JSON document per scope, kind and key); declare states");
  const path = (scope: string, kind: string, key: string, query?: URLSearchParams) => apiPath(['states', name('scope', scope), name('kind', kind), key], query);
  stateDeclarationCommands(cmd, ctx);

  cmd
    .command('list')
    .description('list the subjects of one scope and kind that have state, by key, one page (or every page with --all)')
    .requiredOption('--scope <scope>', 'the subject scope, e.g. github')
    .requiredOption('--kind <kind>', 'the subject kind, e.g. pull_request')
    .option('--limit <n>', `page size, 1-${MAX_LIMIT} (server default 50)`)
    .option('--cursor <cursor>', 'the next_cursor of the previous page')
    .option('--all', 'follow next_cursor to the last page and print every subject')
    .addHelpText(
      'after',
      '\nExamples:\n  hookyard states list --scope github --kind pull_request\n  hookyard states list --scope github --kind pull_request --all --json',
    )
    .action(async (opts: { scope: string; kind: string; limit?: string; cursor?: string; all?: boolean }) => {
      name('--scope', opts.scope);
      name('--kind', opts.kind);
      if (opts.limit !== undefined && !(/^\d{1,4}$/.test(opts.limit) && Number(opts.limit) >= 1 && Number(opts.limit) <= MAX_LIMIT)) {
        throw new CliError(`--limit must be a whole number from 1 to ${MAX_LIMIT}, got ${JSON.stringify(opts.limit)}`, EXIT.usage);
      }
      if (opts.all && opts.cursor !== undefined) throw new CliError('give either --all or --cursor, not both', EXIT.usage);
      const query = (cursor: string | undefined) => {
        const q = new URLSearchParams({ scope: opts.scope, kind: opts.kind });
        if (opts.limit !== undefined) q.set('limit', opts.limit);
        if (cursor !== undefined) q.set('cursor', cursor);
        return q;
      };
      const client = ctx.client();
      let page = await client.get<AnswerOf<typeof listStates>>(apiPath(['states'], query(opts.cursor)));
      if (opts.all) {
        const all = [...page.states];
        for (let n = 1; page.next_cursor && n < MAX_PAGES; n++) {
          page = await client.get<AnswerOf<typeof listStates>>(apiPath(['states'], query(page.next_cursor)));
          all.push(...page.states);
        }
        page = { states: all, next_cursor: page.next_cursor };
      }
      const res = page;
      ctx.emit(res, () => {
        printTable(
          res.states.map((s) => ({ ...s, updated_by: writer(s.updated_by) })),
          ['key', 'version', 'updated_at', 'updated_by'],
        );
        if (res.next_cursor) say(`more: hookyard states list --scope ${opts.scope} --kind ${opts.kind} --cursor ${res.next_cursor} (or --all)`);
      });
    });

  cmd
    .command('show <scope> <kind> <key>')
    .description("show a subject's state: its document, version and write history (who wrote, through which door, when)")
    .action(async (scope: string, kind: string, key: string) => {
      const r = await ctx.client().get<AnswerOf<typeof getState>>(path(scope, kind, key));
      ctx.emit(r, () => {
        say(`${label(r)} version ${r.version} (created ${r.created_at}, updated ${r.updated_at})`);
        say(JSON.stringify(r.document, null, 2));
        say('');
        printTable(
          r.history.map((w) => ({ ...w, by: writer(w) })),
          ['version', 'op', 'at', 'by'],
        );
      });
    });

  cmd
    .command('set <scope> <kind> <key>')
    .description("replace a subject's state document (operator); with --if-version only on that version")
    .option('--document <json>', 'the document, a JSON object')
    .option('--file <path>', 'read the document from a JSON file (- for stdin)')
    .option('--if-version <n>', 'write only if the kept version is n (0: no document yet); else refused (409, exit 1)')
    .addHelpText('after', `\nExample:\n  hookyard states set github pull_request 'acme/api#7' --document '{"checks":"green"}' --if-version 3`)
    .action(async (scope: string, kind: string, key: string, opts: { document?: string; file?: string; ifVersion?: string }) => {
      const document = readDocument(opts);
      const ifVersion = version(opts.ifVersion);
      const r = await ctx
        .client()
        .put<AnswerOf<typeof putState>>(path(scope, kind, key), { document, ...(ifVersion === undefined ? {} : { if_version: ifVersion }) });
      ctx.emit(r, () => say(`${r.version === 1 ? 'created' : 'set'} ${label(r)}: version ${r.version}`));
    });

  cmd
    .command('delete <scope> <kind> <key>')
    .description("delete a subject's state and its history (operator); with --if-version only on that version")
    .option('--if-version <n>', 'delete only if the kept version is n; else refused (409, exit 1)')
    .action(async (scope: string, kind: string, key: string, opts: { ifVersion?: string }) => {
      const ifVersion = version(opts.ifVersion);
      const q = ifVersion === undefined ? undefined : new URLSearchParams({ if_version: String(ifVersion) });
      const r = await ctx.client().delete<AnswerOf<typeof deleteState>>(path(scope, kind, key, q));
      ctx.emit(r, () => say(`deleted ${label(r)} (it was at version ${r.version})`));
    });
}
