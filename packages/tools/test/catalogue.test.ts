/**
 * Catalogue exports against each vendor's published tool-definition rules:
 * OpenAI Chat Completions `tools` (type "function"; name
 * ^[a-zA-Z0-9_-]{1,64}$; description at most 1024 characters, else the API
 * answers string_above_max_length; parameters a JSON Schema object),
 * Anthropic Messages `tools` (name ^[a-zA-Z0-9_-]{1,64}$, input_schema an
 * object schema) and MCP `tools/list` entries, parsed with the MCP SDK's own
 * ToolSchema.
 */
import { toolDefinitions } from '../src/catalogue';
import type { ToolInfo } from '../src/types';
import { vendorMisses } from './support/vendor-rules';

const long = 'Lists things. '.repeat(120); // 1680 characters
const tools: ToolInfo[] = [
  {
    name: 'echo',
    description: 'Returns its arguments',
    parameters: { type: 'object', properties: { text: { type: 'string' } }, required: ['text'] },
    provider: 'local',
  },
  {
    name: 'svc__list_things',
    description: long,
    parameters: { $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: {} },
    provider: 'openapi',
  },
  { name: 'bare', description: '', parameters: {}, provider: 'http' },
];

describe('tool definitions per vendor', () => {
  it('openai: {type, function: {name, description, parameters}}, descriptions cut to 1024 with an ellipsis', () => {
    const defs = toolDefinitions(tools, 'openai');
    expect(defs[0]).toEqual({ type: 'function', function: { name: 'echo', description: 'Returns its arguments', parameters: tools[0]!.parameters } });
    const cut = (defs[1] as any).function.description as string;
    expect(cut.length).toBe(1024);
    expect(cut.endsWith('…')).toBe(true);
    expect(long.startsWith(cut.slice(0, 1000))).toBe(true);
    expect((defs[1] as any).function.parameters).toEqual({ type: 'object', properties: {} });
    expect((defs[2] as any).function.parameters).toEqual({ type: 'object' });
    expect(vendorMisses('openai', defs)).toEqual([]);
  });

  it('anthropic: {name, description, input_schema}, descriptions whole (no published limit)', () => {
    const defs = toolDefinitions(tools, 'anthropic');
    expect(defs[0]).toEqual({ name: 'echo', description: 'Returns its arguments', input_schema: tools[0]!.parameters });
    expect((defs[1] as any).description).toBe(long);
    expect(vendorMisses('anthropic', defs)).toEqual([]);
  });

  it('openai-responses: {type, name, description, parameters, strict: false}, descriptions cut to 1024', () => {
    const defs = toolDefinitions(tools, 'openai-responses');
    expect(defs[0]).toEqual({ type: 'function', name: 'echo', description: 'Returns its arguments', parameters: tools[0]!.parameters, strict: false });
    expect((defs[1] as any).description).toHaveLength(1024);
    expect((defs[1] as any).parameters).toEqual({ type: 'object', properties: {} });
    expect(vendorMisses('openai-responses', defs)).toEqual([]);
  });

  it('gemini: FunctionDeclaration {name, description, parametersJsonSchema}, descriptions whole', () => {
    const defs = toolDefinitions(tools, 'gemini');
    expect(defs[0]).toEqual({ name: 'echo', description: 'Returns its arguments', parametersJsonSchema: tools[0]!.parameters });
    expect((defs[1] as any).description).toBe(long);
    expect((defs[2] as any).parametersJsonSchema).toEqual({ type: 'object' });
    expect(vendorMisses('gemini', defs)).toEqual([]);
    // Gemini wants a letter or `_` first: a tool name starting with a digit is caught.
    expect(vendorMisses('gemini', toolDefinitions([{ ...tools[0]!, name: '2fa' }], 'gemini'))).toEqual(['2fa: name']);
  });

  it("mcp: {name, description, inputSchema}, as the MCP SDK's ToolSchema reads it", () => {
    const defs = toolDefinitions(tools, 'mcp');
    expect(defs[0]).toEqual({ name: 'echo', description: 'Returns its arguments', inputSchema: tools[0]!.parameters });
    // MCP keeps the schema's dialect (the model APIs do not take $schema).
    expect((defs[1] as any).inputSchema).toEqual({ $schema: 'http://json-schema.org/draft-07/schema#', type: 'object', properties: {} });
    expect((toolDefinitions(tools, 'anthropic')[1] as any).input_schema).toEqual({ type: 'object', properties: {} });
    expect(vendorMisses('mcp', defs)).toEqual([]);
  });

  it('a cut never splits a surrogate pair', () => {
    const emoji = [{ ...tools[0]!, description: `${'a'.repeat(1022)}😀😀` }];
    const d = (toolDefinitions(emoji, 'openai')[0] as any).function.description as string;
    expect(d).toBe(`${'a'.repeat(1022)}…`);
  });

  it('the checks can fail: a long name, a long OpenAI description and a non-object schema are caught', () => {
    const bad = [{ type: 'function', function: { name: 'x'.repeat(65), description: 'd'.repeat(1025), parameters: { type: 'string' } } }];
    expect(vendorMisses('openai', bad)).toHaveLength(3);
    expect(vendorMisses('mcp', [{ name: 'a b', inputSchema: { type: 'string' } }]).length).toBeGreaterThan(0);
  });
});
