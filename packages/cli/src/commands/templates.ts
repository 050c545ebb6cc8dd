import type { Command } from 'commander';
import { CliError, EXIT, apiPath, readRecord } from '../client';
import { printRecord, printTable, say } from '../output';
import type { CliContext } from '../context';
import type { AnswerOf, getTemplate, listTemplates, putTemplate, removeTemplate } from '@hookyard/api';

/** A template id may hold `/` (`jq/missing`): each segment is encoded, the slashes kept (the server's wildcard route). */
function templatePath(id: string): string {
  return apiPath(['jq-templates', ...id.split('/')]);
}

/**
 * `hookyard templates ...` over `GET /api/jq-templates` and `GET/PUT/DELETE /api/jq-templates/{id}`,
 * their answers typed from the routes' declarations (@hookyard/api).
 */
export function templatesCommand(program: Command, ctx: CliContext): void {
  const templates = program.command('templates').description('stored jq templates hooks can use ({"id": ..., "kwargs": {...}})');

  templates
    .command('list')
    .description('list stored jq templates')
    .action(async () => {
      const res = await ctx.client().get<AnswerOf<typeof listTemplates>>(apiPath(['jq-templates']));
      ctx.emit(res, () => printTable(res.templates, ['id', 'description', 'content']));
    });

  templates
    .command('show <id>')
    .description('show one stored jq template')
    .action(async (id: string) => {
      const t = await ctx.client().get<AnswerOf<typeof getTemplate>>(templatePath(id));
      ctx.emit(t, () => printRecord(t));
    });

  templates
    .command('put <id>')
    .description('store a jq template, or replace the one with that id (operator); compiled on write')
    .option('--content <jq>', "the jq program; $names it mentions are filled from a hook's kwargs")
    .option('--description <text>', 'what the template is for')
    .option('--params <json>', 'the whole record {"content","description"} instead of --content/--description')
    .option('--file <path>', 'read the record from a JSON file (- for stdin)')
    .addHelpText('after', `\nExample:\n  hookyard templates put jq/has-label --content '.labels | index($label) != null' --description 'a label is set'`)
    .action(async (id: string, opts: { content?: string; description?: string; params?: string; file?: string }) => {
      const fromRecord = opts.params !== undefined || opts.file !== undefined;
      if (fromRecord && (opts.content !== undefined || opts.description !== undefined)) {
        throw new CliError('give either --content/--description or --params/--file, not both', EXIT.usage);
      }
      if (!fromRecord && opts.content === undefined) throw new CliError('the template is required: --content JQ (or --params JSON / --file PATH)', EXIT.usage);
      const body = fromRecord
        ? readRecord('template record', opts)
        : { content: opts.content, ...(opts.description !== undefined ? { description: opts.description } : {}) };
      const res = await ctx.client().put<AnswerOf<typeof putTemplate>>(templatePath(id), body);
      ctx.emit(res, () => say(`${res.created ? 'stored' : 'replaced'} jq template ${res.template.id}`));
    });

  templates
    .command('remove <id>')
    .description('remove a stored jq template (operator); refused while a hook uses it')
    .action(async (id: string) => {
      const res = await ctx.client().delete<AnswerOf<typeof removeTemplate>>(templatePath(id));
      ctx.emit(res, () => say(`removed jq template ${res.id}`));
    });
}
