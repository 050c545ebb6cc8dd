import type { Command } from 'commander';
import { apiPath, readRecord } from '../client';
import { printJson, printRecord, printTable, say } from '../output';
import type { CliContext } from '../context';

type ToolWire = Record<string, unknown> & { name: string; provider: string };
type ToolRecord = Record<string, unknown> & { name: string; endpoint: string };

/**
 * `hookyard tools ...` over `GET/POST /api/tools` and `GET/DELETE /api/tools/{name}`.
 * Answers: list `{tools, registered}`, show the tool (with its `record` when it is a
 * registered service), register `{created, tool}`, remove `{removed, name}`,
 * export `GET /api/tools?format=...` (the `tools` array printed as JSON).
 */
export function toolsCommand(program: Command, ctx: CliContext): void {
  const tools = program.command('tools').description('list and show tools; register and remove tool services (HTTP, OpenAPI, MCP, gRPC)');

  tools
    .command('list')
    .description('every tool hooks can call, with its provider')
    .action(async () => {
      const res = await ctx.client().get<{ tools: ToolWire[]; registered: ToolRecord[] }>(apiPath(['tools']));
      ctx.emit(res, () => printTable(res.tools, ['name', 'provider', 'description']));
    });

  tools
    .command('export')
    .description("the catalogue as one model vendor's tool definitions, a JSON array to hand to the model (injected arguments hidden)")
    .requiredOption('--format <format>', 'openai ({"type":"function","function":{...}}, descriptions cut to 1024), anthropic ({name, description, input_schema}) or mcp ({name, description, inputSchema})')
    .action(async (opts: { format: string }) => {
      const res = await ctx.client().get<{ format: string; tools: unknown[] }>(apiPath(['tools'], new URLSearchParams({ format: opts.format })));
      // The array alone, human or not: it is what a model API takes.
      printJson(res.tools);
    });

  tools
    .command('show <name>')
    .description('one tool with its JSON Schema, or a registered service with the tools it provides')
    .action(async (name: string) => {
      const tool = await ctx.client().get<ToolWire>(apiPath(['tools', name]));
      ctx.emit(tool, () => printRecord(tool));
    });

  tools
    .command('register')
    .description('register a tool service (kind http, openapi, mcp or grpc), or replace the one of that name (admin)')
    .option('--params <json>', 'the record, e.g. {"name":"weather","endpoint":"http://127.0.0.1:9000/w","protocol":"openai"} or {"name":"pets","kind":"openapi","endpoint":"http://127.0.0.1:9001"}')
    .option('--file <path>', 'read the record from a JSON file (- for stdin)')
    .addHelpText(
      'after',
      `\nExample:\n  hookyard tools register --params '{"name":"summarize","endpoint":"http://127.0.0.1:9000/summarize","protocol":"openai"}'`,
    )
    .action(async (opts: { params?: string; file?: string }) => {
      const body = readRecord('tool record', opts);
      const res = await ctx.client().post<{ created: boolean; tool: ToolRecord }>(apiPath(['tools']), body);
      ctx.emit(res, () => say(`${res.created ? 'registered' : 'replaced'} tool service ${res.tool.name} (${res.tool.endpoint})`));
    });

  tools
    .command('remove <name>')
    .description('remove a registered tool service (admin); refused while a hook calls it or one of its tools')
    .action(async (name: string) => {
      const res = await ctx.client().delete<{ removed: boolean; name: string }>(apiPath(['tools', name]));
      ctx.emit(res, () => say(`removed tool service ${res.name}`));
    });
}
