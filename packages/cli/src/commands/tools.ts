import type { Command } from 'commander';
import { parseJsonOption, CliError, EXIT } from '../client';
import { printJson, printRecord, printTable } from '../output';
import type { CliContext } from '../context';

export function toolsCommand(program: Command, ctx: CliContext): void {
  const tools = program.command('tools').description('list tools; register and remove HTTP tool services');

  tools
    .command('list')
    .description('every tool hooks can call, with its provider')
    .action(async () => {
      const res = await ctx.client().call<{ tools: Record<string, unknown>[] }>('GET', 'api/tools');
      if (ctx.json()) return printJson(res);
      printTable(res.tools, ['name', 'provider', 'description']);
    });

  tools
    .command('show <name>')
    .description('one tool with its JSON Schema')
    .action(async (name: string) => {
      const res = await ctx.client().call<Record<string, unknown>>('GET', `api/tools/${encodeURIComponent(name)}`);
      if (ctx.json()) return printJson(res);
      printRecord((res.tool as Record<string, unknown>) ?? res);
    });

  tools
    .command('register')
    .description('register (or replace) an HTTP tool service (admin)')
    .option('--params <json>', 'the record: {"name","endpoint","method","timeout_ms","headers","body_properties","protocol"}')
    .action(async (opts: { params?: string }) => {
      if (!opts.params) throw new CliError('the tool record is required: --params JSON', EXIT.usage);
      const res = await ctx.client().call<Record<string, unknown>>('POST', 'api/tools', parseJsonOption('--params', opts.params));
      if (ctx.json()) return printJson(res);
      process.stdout.write(`registered tool service ${String((res.tool as { name?: string })?.name ?? '')}\n`);
    });

  tools
    .command('remove <name>')
    .description('remove a registered HTTP tool service (admin)')
    .action(async (name: string) => {
      const res = await ctx.client().call('DELETE', `api/tools/${encodeURIComponent(name)}`);
      if (ctx.json()) return printJson(res);
      process.stdout.write(`removed tool service ${name}\n`);
    });
}
