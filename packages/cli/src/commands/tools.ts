import type { Command } from 'commander';
import type { AnswerOf, getTool, listTools, putTool, removeTool } from '@hookyard/api';
import { apiPath, readRecord } from '../client';
import { printJson, printRecord, printTable, say } from '../output';
import type { CliContext } from '../context';

/** The listing (no ?format) and the catalogue (?format) `GET /api/tools` answers. */
type Listing = Extract<AnswerOf<typeof listTools>, { registered: unknown }>;
type Catalogue = Extract<AnswerOf<typeof listTools>, { format: unknown }>;
type DiscoveryWire = Listing['discovery'][number];

/** One row per provider registration: when it was last discovered, and its last discovery error. */
export function discoveryRows(statuses: readonly DiscoveryWire[]): Record<string, string>[] {
  return statuses.map((d) => ({
    registration: d.name,
    last_success: d.last_success ? `${d.last_success.at} (${d.last_success.tools} tools)` : 'never',
    last_discovery_error: d.last_error ? `${d.last_error.at} ${d.last_error.kind}: ${d.last_error.message}` : '',
  }));
}

/**
 * `hookyard tools ...` over `GET/POST /api/tools` and `GET/DELETE /api/tools/{name}`.
 * Answers: list `{tools, registered, discovery}` (a second table: each openapi, mcp
 * and grpc registration's last discovery and last discovery error), show the tool
 * (with its `record` when it is a registered service, and its `discovery`), register
 * `{created, tool, discovered?, tools?}` (`--no-discover`: ?discover=false), remove `{removed, name}`,
 * export `GET /api/tools?format=...` (the `tools` array printed as JSON).
 */
export function toolsCommand(program: Command, ctx: CliContext): void {
  const tools = program.command('tools').description('list and show tools; register and remove tool services (HTTP, OpenAPI, MCP, gRPC)');

  tools
    .command('list')
    .description('every tool hooks can call, with its provider')
    .action(async () => {
      const res = await ctx.client().get<Listing>(apiPath(['tools']));
      ctx.emit(res, () => {
        printTable(res.tools, ['name', 'provider', 'description']);
        if (res.discovery?.length) {
          say('');
          printTable(discoveryRows(res.discovery), ['registration', 'last_success', 'last_discovery_error']);
        }
      });
    });

  tools
    .command('export')
    .description("the catalogue as one model vendor's tool definitions, a JSON array to hand to the model (injected arguments hidden)")
    .requiredOption(
      '--format <format>',
      'openai (Chat Completions {"type":"function","function":{...}}, descriptions cut to 1024), openai-responses (Responses API {"type":"function", name, description, parameters, "strict": false}), ' +
        'anthropic ({name, description, input_schema}), gemini (FunctionDeclaration {name, description, parametersJsonSchema}, for tools: [{functionDeclarations}]) or mcp ({name, description, inputSchema})',
    )
    .action(async (opts: { format: string }) => {
      const res = await ctx.client().get<Catalogue>(apiPath(['tools'], new URLSearchParams({ format: opts.format })));
      // The array alone, human or not: it is what a model API takes.
      printJson(res.tools);
    });

  tools
    .command('show <name>')
    .description('one tool with its JSON Schema, or a registered service with the tools it provides')
    .action(async (name: string) => {
      const tool = await ctx.client().get<AnswerOf<typeof getTool>>(apiPath(['tools', name]));
      ctx.emit(tool, () => printRecord(tool));
    });

  tools
    .command('register')
    .description('register a tool service (kind http, openapi, mcp or grpc), or replace the one of that name (admin)')
    .option(
      '--params <json>',
      'the record, e.g. {"name":"weather","endpoint":"http://127.0.0.1:9000/w","protocol":"openai"} or {"name":"pets","kind":"openapi","endpoint":"http://127.0.0.1:9001"}',
    )
    .option('--file <path>', 'read the record from a JSON file (- for stdin)')
    .option('--no-discover', 'keep an openapi, mcp or grpc registration without discovering it now (a service that is not up yet)')
    .addHelpText(
      'after',
      `\nExample:\n  hookyard tools register --params '{"name":"summarize","endpoint":"http://127.0.0.1:9000/summarize","protocol":"openai"}'`,
    )
    .action(async (opts: { params?: string; file?: string; discover: boolean }) => {
      const body = readRecord('tool record', opts);
      const path = apiPath(['tools'], opts.discover ? undefined : new URLSearchParams({ discover: 'false' }));
      const res = await ctx.client().post<AnswerOf<typeof putTool, 200 | 201>>(path, body);
      const found = res.discovered === true ? `: ${res.tools} tools discovered` : res.discovered === false ? ': not discovered (--no-discover)' : '';
      ctx.emit(res, () => say(`${res.created ? 'registered' : 'replaced'} tool service ${res.tool.name} (${res.tool.endpoint})${found}`));
    });

  tools
    .command('remove <name>')
    .description('remove a registered tool service (admin); refused while a hook calls it or one of its tools')
    .action(async (name: string) => {
      const res = await ctx.client().delete<AnswerOf<typeof removeTool>>(apiPath(['tools', name]));
      ctx.emit(res, () => say(`removed tool service ${res.name}`));
    });
}
