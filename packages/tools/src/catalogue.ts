import type { JsonSchema, ToolInfo } from './types';

/** The vendor shapes a catalogue is exported in. */
export const CATALOGUE_FORMATS = ['openai', 'openai-responses', 'anthropic', 'gemini', 'mcp'] as const;
export type CatalogueFormat = (typeof CATALOGUE_FORMATS)[number];

/**
 * Longest description each vendor takes. OpenAI refuses a function
 * description over 1024 characters (`string_above_max_length`), in Chat
 * Completions and Responses alike; Anthropic, Gemini and the MCP
 * specification publish no limit, so theirs stay whole.
 */
export const DESCRIPTION_LIMITS: Record<CatalogueFormat, number | undefined> = {
  openai: 1024,
  'openai-responses': 1024,
  anthropic: undefined,
  gemini: undefined,
  mcp: undefined,
};

/** A description of at most `limit` characters, ending in `…` when it was cut (never inside a surrogate pair). */
function trimmed(text: string, limit: number | undefined): string {
  if (limit === undefined || text.length <= limit) return text;
  let head = text.slice(0, limit - 1);
  if (/[\uD800-\uDBFF]$/.test(head)) head = head.slice(0, -1);
  return `${head.trimEnd()}…`;
}

/**
 * Every vendor wants an object schema at the top; a tool without parameters
 * takes none. The model APIs take no `$schema`; MCP keeps it (its 2025-11-25
 * revision reads a tool's schema as JSON Schema 2020-12 unless `$schema` says
 * another dialect).
 */
function objectSchema(schema: JsonSchema, keepDialect: boolean): JsonSchema {
  const { $schema, ...rest } = schema;
  const shaped = rest.type === 'object' ? rest : { ...rest, type: 'object' };
  return keepDialect && $schema !== undefined ? { $schema, ...shaped } : shaped;
}

/**
 * The catalogue as one vendor's tool definitions, in the order given (the
 * tools' `parameters` already hide injected arguments):
 * - `openai`: `{"type":"function","function":{name, description, parameters}}` (Chat Completions `tools`);
 * - `openai-responses`: `{"type":"function", name, description, parameters, "strict": false}` (Responses API `tools`;
 *   not strict: strict mode wants every property required and no other, which a tool's schema need not be);
 * - `anthropic`: `{name, description, input_schema}` (Messages API `tools`);
 * - `gemini`: `{name, description, parametersJsonSchema}` (a `FunctionDeclaration`, for `tools: [{functionDeclarations}]`;
 *   JSON Schema as it is, not Gemini's OpenAPI-subset `parameters`);
 * - `mcp`: `{name, description, inputSchema}` (an MCP `tools/list` result's `tools`).
 * Names are Hookyard's tool names, which fit `^[a-zA-Z0-9_-]{1,64}$`, the
 * rule of OpenAI and Anthropic; Gemini also wants a letter or `_` first, so a
 * tool whose name starts with a digit is refused by Gemini (docs/agents.md says so).
 */
export function toolDefinitions(tools: readonly ToolInfo[], format: CatalogueFormat): Record<string, unknown>[] {
  const limit = DESCRIPTION_LIMITS[format];
  return tools.map((t) => {
    const description = trimmed(t.description, limit);
    const schema = objectSchema(t.parameters, format === 'mcp');
    if (format === 'openai') return { type: 'function', function: { name: t.name, description, parameters: schema } };
    if (format === 'openai-responses') return { type: 'function', name: t.name, description, parameters: schema, strict: false };
    if (format === 'anthropic') return { name: t.name, description, input_schema: schema };
    if (format === 'gemini') return { name: t.name, description, parametersJsonSchema: schema };
    return { name: t.name, description, inputSchema: schema };
  });
}
