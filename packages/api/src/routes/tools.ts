import { Type } from '@sinclair/typebox';
import { answer, route } from '../decl';
import { Removed } from '../shared';
import { CATALOGUE_FORMAT_VALUES, DiscoveryStatus, Enum, Tool, ToolProvider, ToolRecord, ToolRecordInput } from './approvals-shared';

/** What a registration of a discovered kind answers besides the record. */
const DISCOVERY_FIELDS = {
  discovered: Type.Optional(Type.Boolean({ description: 'true when the service was discovered now (openapi, mcp, grpc); false with ?discover=false' })),
  tools: Type.Optional(Type.Integer({ minimum: 0, description: 'how many tools the service provides, when discovered' })),
};

/** An error answer of its own (422, 502): the shared Error shape. */
const ErrorBody = Type.Object({
  error: Type.Object({ kind: Type.String(), message: Type.String(), details: Type.Optional(Type.Array(Type.String())) }),
});

/** A vendor's tool definition (with ?format): its shape is the vendor's. */
const VendorTool = Type.Unsafe<Record<string, unknown>>({
  type: 'object',
  additionalProperties: true,
  description: "a vendor's tool definition (with ?format)",
});

export const listTools = route({
  method: 'GET',
  path: '/tools',
  role: 'reader',
  operationId: 'listTools',
  tag: 'tools',
  summary: "Every tool the deployment can call, and the registered tool services; with ?format, the catalogue in a model vendor's tool shape",
  description: "With ?format, an agent token may also call it and sees only the tools it may call (HOOKS_TOOLS_ALLOW ∩ the agent's tools_allow).",
  query: Type.Object({
    format: Type.Optional(
      Enum(CATALOGUE_FORMAT_VALUES, {
        description:
          'openai (Chat Completions): {"type":"function","function":{name,description,parameters}} (descriptions cut to 1024); ' +
          'openai-responses: {"type":"function",name,description,parameters,"strict":false} (descriptions cut to 1024); anthropic: {name,description,input_schema}; ' +
          'gemini: {name,description,parametersJsonSchema} (a FunctionDeclaration); mcp: {name,description,inputSchema}. Injected arguments are hidden in every shape.',
        'x-error': `format must be one of ${CATALOGUE_FORMAT_VALUES.join(', ')}, got {got}`,
      }),
    ),
  }),
  // The line is the message (`format must be one of openai, openai-responses, anthropic, gemini, mcp, got "x"`), as agents' tests pin.
  linesInMessage: true,
  answers: {
    200: answer(
      'Tools: the listing, or with ?format the catalogue',
      Type.Union([
        Type.Object({
          tools: Type.Array(Tool),
          registered: Type.Array(ToolRecord, { description: 'the registered tool services' }),
          discovery: Type.Array(DiscoveryStatus, { description: 'the last discoveries of every openapi, mcp and grpc registration, by the executors' }),
        }),
        Type.Object({
          format: Enum(CATALOGUE_FORMAT_VALUES, { description: 'the shape of each entry of tools' }),
          tools: Type.Array(VendorTool),
        }),
      ]),
    ),
  },
  errors: [400],
});

export const getTool = route({
  method: 'GET',
  path: '/tools/:name',
  role: 'reader',
  operationId: 'getTool',
  tag: 'tools',
  summary: 'One tool with its JSON Schema (and its record when registered); a provider registration lists its tools and its discovery status',
  params: Type.Object({ name: Type.String({ description: 'Tool name' }) }),
  answers: { 200: answer('The tool, or the provider registration', Type.Union([Tool, ToolProvider])) },
  errors: [404],
});

export const putTool = route({
  method: 'POST',
  path: '/tools',
  role: 'admin',
  operationId: 'putTool',
  tag: 'tools',
  summary: 'Register or replace a tool service',
  description:
    'An openapi, mcp or grpc registration is discovered before it is kept, by an executor (the ingress never reaches a registered service): the answer counts its tools, or says why the service cannot be read. ' +
    '422: the service answered with something that cannot be used (not JSON, not OpenAPI 3, larger than HOOKS_OPENAPI_MAX_BYTES); ' +
    '502: the service could not be read (unreachable, an HTTP error, a timeout); 503: no executor answered the discovery request within HOOKS_DISCOVERY_TIMEOUT_SECONDS. Nothing is registered then.',
  query: Type.Object({
    discover: Type.Optional(
      Enum(['true', 'false'] as const, {
        default: 'true',
        description: 'false: keep an openapi, mcp or grpc registration without discovering it (a service that is not up yet)',
        'x-error': 'discover must be true or false, got {got}',
      }),
    ),
  }),
  body: ToolRecordInput,
  // validateToolRecord is the registry's one validator (config files too): its lines, per kind. The query is the declaration's.
  handlerChecks: ['body'],
  refused: 'tool registration refused',
  answers: {
    200: answer('Replaced', Type.Object({ created: Type.Unsafe<false>({ type: 'boolean', enum: [false] }), tool: ToolRecord, ...DISCOVERY_FIELDS })),
    201: answer('Registered', Type.Object({ created: Type.Unsafe<true>({ type: 'boolean', enum: [true] }), tool: ToolRecord, ...DISCOVERY_FIELDS })),
    422: answer('The service answered with something that cannot be used; nothing registered', ErrorBody),
    502: answer('The service could not be read; nothing registered', ErrorBody),
  },
  errors: [400, 503],
  audit: 'tool.register',
});

export const removeTool = route({
  method: 'DELETE',
  path: '/tools/:name',
  role: 'admin',
  operationId: 'removeTool',
  tag: 'tools',
  summary: 'Remove a registered tool service; refused while a hook calls it',
  params: Type.Object({ name: Type.String({ description: 'Tool name', pattern: '^[a-z0-9][a-z0-9_-]*$', maxLength: 128 }) }),
  paramsMiss: (p) => `tool '${p.name}' is not a registered tool service`,
  answers: { 200: answer('Removed', Removed) },
  errors: [404, 409],
  audit: 'tool.remove',
});

export const TOOL_ROUTES = [listTools, getTool, putTool, removeTool] as const;
