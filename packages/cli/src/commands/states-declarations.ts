import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import type { AnswerOf, deleteStateDeclaration, getStateDeclaration, listStateDeclarations, putStateDeclaration } from '@hookyard/api';
import { NAME_PATTERN, NAME_PATTERN_SOURCE } from '@hookyard/core';
import { CliError, EXIT, apiPath, parseJsonOption } from '../client';
import { printTable, say } from '../output';
import type { CliContext } from '../context';

function name(option: string, value: string): string {
  if (!NAME_PATTERN.test(value)) throw new CliError(`${option} ${JSON.stringify(value)} must match ${NAME_PATTERN_SOURCE}`, EXIT.usage);
  return value;
}

/** `--schema JSON` or `--schema-file PATH` (`-`: stdin); exactly one. */
function readSchema(opts: { schema?: string; schemaFile?: string }): unknown {
  if ((opts.schema === undefined) === (opts.schemaFile === undefined))
    throw new CliError('give the JSON Schema as --schema JSON or --schema-file PATH (- for stdin), one of the two ({} accepts any object)', EXIT.usage);
  if (opts.schema !== undefined) return parseJsonOption('--schema', opts.schema);
  let raw: string;
  try {
    raw = readFileSync(opts.schemaFile === '-' ? 0 : opts.schemaFile!, 'utf8');
  } catch (err) {
    throw new CliError(`cannot read --schema-file ${opts.schemaFile}: ${(err as Error).message}`, EXIT.usage);
  }
  return parseJsonOption(`--schema-file ${opts.schemaFile}`, raw);
}

/** `--template name=JSON` (a jq field: {"content": "..."} or {"id": "...", "kwargs": {...}}), repeatable. */
function templates(values: string[]): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const v of values) {
    const eq = v.indexOf('=');
    if (eq < 1) throw new CliError(`--template ${JSON.stringify(v)} must be name=JSON, e.g. key_expr='{"content":".pr"}'`, EXIT.usage);
    out[v.slice(0, eq)] = parseJsonOption(`--template ${v.slice(0, eq)}`, v.slice(eq + 1));
  }
  return out;
}

const bindings = (d: AnswerOf<typeof getStateDeclaration>) =>
  (d.bound_by ?? []).map((b) => `${b.hook} ${b.attach === null ? '(whole document, shared)' : JSON.stringify(b.attach)}`).join(', ');

/**
 * `hookyard states declare|declarations|undeclare` over
 * `/api/states/declarations[/{scope}/{kind}]`: a state is declared (admin)
 * before a hook binds it; the answers are the API's.
 */
export function stateDeclarationCommands(cmd: Command, ctx: CliContext): void {
  const path = (scope: string, kind: string) => apiPath(['states', 'declarations', name('scope', scope), name('kind', kind)]);

  cmd
    .command('declare <scope> <kind>')
    .description('declare a state (admin): the JSON Schema (draft 2020-12) its documents must satisfy, a description and named jq templates a binding attaches')
    .option('--schema <json>', 'the JSON Schema, e.g. \'{"type":"object"}\' ({} accepts any object)')
    .option('--schema-file <path>', 'read the JSON Schema from a file (- for stdin)')
    .requiredOption('--description <text>', 'what the state holds')
    .option(
      '--template <name=json>',
      'a named template (key_expr or a hook jq field) as a jq field; repeatable',
      (v: string, all: string[]) => [...all, v],
      [] as string[],
    )
    .addHelpText(
      'after',
      `\nExample:\n  hookyard states declare github pull_request --schema '{"type":"object","properties":{"checks":{"type":"object"}}}' \\\n    --description 'a pull request' --template 'key_expr={"content":"\\"\\\\(.repo)#\\\\(.pr)\\""}'`,
    )
    .action(async (scope: string, kind: string, opts: { schema?: string; schemaFile?: string; description: string; template: string[] }) => {
      const body = { schema: readSchema(opts), description: opts.description, templates: templates(opts.template) };
      const r = await ctx.client().put<AnswerOf<typeof putStateDeclaration>>(path(scope, kind), body);
      ctx.emit(r, () => {
        say(`${r.created ? 'declared' : 'changed'} ${scope}/${kind}: version ${r.declaration.version}`);
        if (r.reattached.length) say(`templates re-attached to: ${r.reattached.join(', ')}`);
      });
    });

  cmd
    .command('declarations [scope] [kind]')
    .description('list the declared states, or show one (its schema, templates and the hooks that bind it)')
    .action(async (scope: string | undefined, kind: string | undefined) => {
      if ((scope === undefined) !== (kind === undefined)) throw new CliError('give both <scope> and <kind>, or neither (to list all)', EXIT.usage);
      if (scope !== undefined) {
        const d = await ctx.client().get<AnswerOf<typeof getStateDeclaration>>(path(scope, kind!));
        ctx.emit(d, () => {
          say(`${d.scope}/${d.kind} version ${d.version} (updated ${d.updated_at}): ${d.description}`);
          say(JSON.stringify({ schema: d.schema, templates: d.templates }, null, 2));
          say(`bound by: ${bindings(d) || 'no hook'}`);
        });
        return;
      }
      const r = await ctx.client().get<AnswerOf<typeof listStateDeclarations>>(apiPath(['states', 'declarations']));
      ctx.emit(r, () =>
        printTable(
          r.declarations.map((d) => ({
            state: `${d.scope}/${d.kind}`,
            version: d.version,
            templates: Object.keys(d.templates).join(',') || '-',
            description: d.description,
          })),
          ['state', 'version', 'templates', 'description'],
        ),
      );
    });

  cmd
    .command('undeclare <scope> <kind>')
    .description('remove a declared state (admin); refused (409, exit 1) while a hook binds it; kept documents stay')
    .action(async (scope: string, kind: string) => {
      const r = await ctx.client().delete<AnswerOf<typeof deleteStateDeclaration>>(path(scope, kind));
      ctx.emit(r, () => say(`undeclared ${scope}/${kind} (it was at version ${r.declaration.version})`));
    });
}
