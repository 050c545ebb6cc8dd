import type { Router } from 'express';
import { DiscoveryUnansweredError } from '@hookyard/bus';
import { agentMayCall, badInput, conflict, notFound, secretScopeOf, toHookyardError, type DiscoveryStatus } from '@hookyard/core';
import { OpenApiDocumentError, TOOL_SEPARATOR, toolDefinitions, redactToolRecord, validateToolRecord, type ToolInfo, type ToolRepo } from '@hookyard/tools';
import { getTool, listTools, putTool, removeTool } from '@hookyard/api';
import { agentOf } from './auth';
import type { ApiContext } from './context';
import { mount } from './declare';

/**
 * The tool registry: every tool the deployment can call (with its JSON Schema
 * and provider), and the admin-only registration of tool services (HTTP on
 * five wire protocols, OpenAPI, MCP, gRPC). Records hold secrets as
 * references (`{"secret":"env:NAME"}`) and are shown with references only: a
 * literal under a credential-looking name (kept before references were
 * required) is never echoed.
 */
export function toolRoutes(router: Router, ctx: ApiContext): void {
  const opts = { validateAnswers: ctx.validateAnswers };
  // An agent token may read the catalogue export (?format), narrowed to the tools it may call.
  mount(
    router,
    listTools,
    async (req, res) => {
      // Checked by the declaration (one of CATALOGUE_FORMATS).
      const format = req.checked.query.format;
      if (format !== undefined) {
        // The catalogue in one model vendor's tool-definition shape, ready to hand to the model.
        const agent = agentOf(res);
        let tools = await allTools(ctx.tools);
        if (agent) tools = tools.filter((t) => agentMayCall(ctx.settings.toolsAllow, agent.tools_allow, null, t.name));
        return void res.json({ format, tools: toolDefinitions(tools, format) });
      }
      const [tools, registered, discovery] = await Promise.all([allTools(ctx.tools), ctx.stores.tools.listTools(), ctx.stores.tools.discoveryStatuses()]);
      const statusOf = new Map(discovery.map((d) => [d.name, d]));
      res.json({
        tools: tools.map(toolToWire),
        registered: registered.map(redactToolRecord),
        // What the executors' last discoveries of each openapi, mcp and grpc registration found.
        discovery: registered.filter((r) => DISCOVERED_KINDS.has(r.kind)).map((r) => discoveryToWire(r.name, statusOf.get(r.name))),
      });
    },
    { ...opts, agentWhen: (req) => req.query.format !== undefined },
  );

  mount(
    router,
    getTool,
    async (req, res) => {
      const name = req.checked.params.name;
      const infos = await ctx.tools.tools(name);
      const info = infos.find((t) => t.name === name);
      const stored = await ctx.stores.tools.getTool(name);
      const record = stored ? redactToolRecord(stored) : null;
      if (info) return void res.json({ ...toolToWire(info), ...(record ? { record } : {}) });
      // A provider registration (OpenAPI, MCP, gRPC) is not itself a tool: show the tools it provides and its last discoveries.
      if (record) {
        const status = (await ctx.stores.tools.discoveryStatuses()).find((d) => d.name === name);
        return void res.json({ name, provider: record.kind, record, tools: infos.map(toolToWire), discovery: discoveryToWire(name, status) });
      }
      throw notFound(`tool '${name}' is not a registered tool`);
    },
    opts,
  );

  mount(
    router,
    putTool,
    async (req, res) => {
      const checked = validateToolRecord(req.body, new Date(ctx.clock.now()), {
        mcpStdioAllow: ctx.settings.mcpStdioAllow,
        secretScope: secretScopeOf(ctx.settings),
      });
      if (!checked.ok) throw badInput('tool registration refused', checked.errors);
      const record = checked.record;
      const previous = await ctx.stores.tools.getTool(record.name);
      if (previous) record.created_at = previous.created_at;
      // A service that provides tools is read now, so the answer says whether it can be used.
      let discovered: string[] | undefined;
      if (DISCOVERED_KINDS.has(record.kind) && req.checked.query.discover !== 'false') {
        try {
          discovered = await ctx.tools.discoverRecord?.(record);
        } catch (err) {
          // No executor answered: the service was not asked at all (503, by its kind, like every unavailable).
          if (err instanceof DiscoveryUnansweredError) throw err;
          const e = toHookyardError(err);
          // The document or server answered with something unusable (not OpenAPI, too large): 422; could not be read: 502.
          const status = e.kind === 'bad_input' || e instanceof OpenApiDocumentError ? 422 : 502;
          ctx.logger.warn({ err: e, tool: record.name }, 'tool registration refused: the service could not be discovered');
          return void res.status(status).json({
            error: {
              kind: e.kind,
              message: `${record.kind} tool '${record.name}' could not be discovered, so it was not registered: ${e.message}`,
              details: ['register with ?discover=false to keep it without this check (for a service that is not up yet)'],
            },
          });
        }
      }
      const { created } = await ctx.stores.tools.putTool(record);
      ctx.logger.info({ tool: record.name, endpoint: record.endpoint, created, tools: discovered?.length }, created ? 'tool registered' : 'tool replaced');
      const found = discovered ? { discovered: true, tools: discovered.length } : DISCOVERED_KINDS.has(record.kind) ? { discovered: false } : {};
      res.status(created ? 201 : 200).json({ created, tool: redactToolRecord(record), ...found });
    },
    opts,
  );

  mount(
    router,
    removeTool,
    async (req, res) => {
      const name = req.checked.params.name;
      if (!(await ctx.stores.tools.getTool(name))) throw notFound(`tool '${name}' is not a registered tool service`);
      // Removing a tool a hook still calls would turn every future run of that hook into a failure.
      // A provider registration serves tools named `<name>__<operation>`.
      const users = (await ctx.stores.hooks.listHooks()).filter((h) => h.tool === name || h.tool.startsWith(`${name}${TOOL_SEPARATOR}`)).map((h) => h.name);
      if (users.length) throw conflict(`tool '${name}' is used by hook(s) ${users.join(', ')}; remove or re-point them first`);
      await ctx.stores.tools.removeTool(name);
      ctx.logger.info({ tool: name }, 'tool removed');
      res.json({ removed: true, name });
    },
    opts,
  );
}

/** Registrations whose tools are discovered from the service: checked when registered unless ?discover=false. */
const DISCOVERED_KINDS = new Set(['openapi', 'mcp', 'grpc']);

/** A registration's discovery status on the wire: never discovered yet is two nulls. */
function discoveryToWire(name: string, status: DiscoveryStatus | undefined): DiscoveryStatus {
  return { name, last_success: status?.last_success ?? null, last_error: status?.last_error ?? null };
}

/** Every tool name with its description; a provider that lists a name but cannot describe it is shown bare. */
async function allTools(repo: ToolRepo): Promise<ToolInfo[]> {
  const out: ToolInfo[] = [];
  for (const name of await repo.names()) {
    const info = (await repo.tools(name)).find((t) => t.name === name);
    out.push(info ?? { name, description: '', parameters: (await repo.schema(name)) ?? {}, provider: 'unknown' });
  }
  return out;
}

function toolToWire(t: ToolInfo): Record<string, unknown> {
  return {
    name: t.name,
    description: t.description,
    provider: t.provider,
    parameters: t.parameters,
    ...(t.retry ? { retry: t.retry } : {}),
    ...(t.crashResumable ? { crash_resumable: true } : {}),
  };
}
