/**
 * The tool-definition rules each model vendor publishes, as a checker: OpenAI
 * Chat Completions `tools` (type "function"; name ^[a-zA-Z0-9_-]{1,64}$;
 * description at most 1024 characters, else the API answers
 * string_above_max_length; parameters an object schema), Anthropic Messages
 * `tools` (name ^[a-zA-Z0-9_-]{1,64}$; input_schema an object schema), OpenAI
 * Responses `tools` (type "function" with name, description and parameters at
 * the top; the same name and description rules), Gemini FunctionDeclarations
 * (name: a letter or `_` first, then letters, digits, `_.:-`, at most 128;
 * parametersJsonSchema an object schema) and MCP `tools/list` entries (the
 * MCP SDK's own ToolSchema).
 */
import { ToolSchema } from '@modelcontextprotocol/sdk/types.js';

const NAME = /^[a-zA-Z0-9_-]{1,64}$/;
const GEMINI_NAME = /^[a-zA-Z_][a-zA-Z0-9_.:-]{0,127}$/;

/** The rules each vendor publishes; one line per miss. */
export function vendorMisses(format: 'openai' | 'openai-responses' | 'anthropic' | 'gemini' | 'mcp', defs: Record<string, any>[]): string[] {
  const misses: string[] = [];
  for (const d of defs) {
    if (format === 'openai') {
      const keys = Object.keys(d).sort().join(',');
      if (keys !== 'function,type' || d.type !== 'function') misses.push(`${JSON.stringify(d).slice(0, 80)}: not {type:"function", function}`);
      const f = d.function ?? {};
      if (typeof f.name !== 'string' || !NAME.test(f.name)) misses.push(`${f.name}: name`);
      if (typeof f.description !== 'string' || f.description.length > 1024) misses.push(`${f.name}: description of ${f.description?.length}`);
      if (f.parameters?.type !== 'object') misses.push(`${f.name}: parameters not an object schema`);
    } else if (format === 'openai-responses') {
      const keys = Object.keys(d).sort().join(',');
      if (keys !== 'description,name,parameters,strict,type' || d.type !== 'function') misses.push(`${d.name}: fields ${keys}`);
      if (typeof d.name !== 'string' || !NAME.test(d.name)) misses.push(`${d.name}: name`);
      if (typeof d.description !== 'string' || d.description.length > 1024) misses.push(`${d.name}: description of ${d.description?.length}`);
      if (d.parameters?.type !== 'object') misses.push(`${d.name}: parameters not an object schema`);
    } else if (format === 'gemini') {
      if (typeof d.name !== 'string' || !GEMINI_NAME.test(d.name)) misses.push(`${d.name}: name`);
      if (typeof d.description !== 'string') misses.push(`${d.name}: description`);
      if (d.parametersJsonSchema?.type !== 'object' || '$schema' in d.parametersJsonSchema) misses.push(`${d.name}: parametersJsonSchema`);
      const extra = Object.keys(d).filter((k) => !['name', 'description', 'parametersJsonSchema'].includes(k));
      if (extra.length) misses.push(`${d.name}: fields ${extra.join(',')}`);
    } else if (format === 'anthropic') {
      if (typeof d.name !== 'string' || !NAME.test(d.name)) misses.push(`${d.name}: name`);
      if (typeof d.description !== 'string') misses.push(`${d.name}: description`);
      if (d.input_schema?.type !== 'object') misses.push(`${d.name}: input_schema not an object schema`);
      const extra = Object.keys(d).filter((k) => !['name', 'description', 'input_schema'].includes(k));
      if (extra.length) misses.push(`${d.name}: fields ${extra.join(',')}`);
    } else {
      const parsed = ToolSchema.safeParse(d);
      if (!parsed.success) misses.push(`${d.name}: ${parsed.error.message.slice(0, 200)}`);
      if (typeof d.name !== 'string' || !NAME.test(d.name)) misses.push(`${d.name}: name`);
    }
  }
  return misses;
}
