import type { AgentClient } from '@hookyard/core';
import { toolDefinitions, type ToolInfo, type ToolRepo } from '@hookyard/tools';

/**
 * The agent's visible catalogue as MCP `tools/list` serves it: the tools the
 * ingress describes (the same ones `GET /api/tools?format=mcp` exports),
 * narrowed by the one allowlist function (AgentCalls.visible), sorted by name
 * and cut into cursor pages.
 */

/** Tools per `tools/list` page (GitHub's REST API alone is 1,223 operations). */
export const MCP_PAGE_SIZE = 100;

/** MCP's (and the model APIs') rule for a tool name; a name outside it is neither listed nor callable. */
const MODEL_TOOL_NAME = /^[a-zA-Z0-9_-]{1,64}$/;

/** One tool as `tools/list` lists it. */
export interface McpTool {
  name: string;
  description: string;
  inputSchema: { type: 'object'; [k: string]: unknown };
  /** Every call may be made as an MCP task (a call that waits for approval is one a client can poll). */
  execution: { taskSupport: 'optional' };
}

/** What narrows the catalogue to one agent's tools: AgentCalls.visible. */
export type VisibleFn = (agent: AgentClient, runtimeAllow: string[] | null, names: readonly string[]) => string[];

/**
 * The catalogue the agent may see: every runtime allowlist the caller sent
 * (a header and `_meta` can both narrow) applies, the stricter always winning.
 */
export async function visibleTools(repo: ToolRepo, visible: VisibleFn, agent: AgentClient, runtime: readonly (string[] | null)[]): Promise<McpTool[]> {
  const all = (await describedTools(repo)).filter((t) => MODEL_TOOL_NAME.test(t.name));
  let names = all.map((t) => t.name);
  const lists = runtime.filter((r): r is string[] => r !== null);
  if (lists.length === 0) names = visible(agent, null, names);
  for (const list of lists) names = visible(agent, list, names);
  const keep = new Set(names);
  const tools = all.filter((t) => keep.has(t.name)).sort((a, b) => (a.name < b.name ? -1 : a.name > b.name ? 1 : 0));
  return toolDefinitions(tools, 'mcp').map((t) => ({ ...t, execution: { taskSupport: 'optional' } })) as unknown as McpTool[];
}

/** Every tool the repo names, described; one it lists but cannot describe is shown bare (as the catalogue export shows it). */
async function describedTools(repo: ToolRepo): Promise<ToolInfo[]> {
  const out: ToolInfo[] = [];
  for (const name of await repo.names()) {
    const info = (await repo.tools(name)).find((t) => t.name === name);
    out.push(info ?? { name, description: '', parameters: (await repo.schema(name)) ?? {}, provider: 'unknown' });
  }
  return out;
}

/** A page of the (sorted) catalogue: the tools after the cursor's name, and the next cursor when more follow. */
export function pageOf(tools: readonly McpTool[], cursor: string | undefined, size = MCP_PAGE_SIZE): { tools: McpTool[]; nextCursor?: string } | null {
  let start = 0;
  if (cursor !== undefined) {
    const after = cursorName(cursor);
    if (after === null) return null;
    // The first tool past the last one served: a tool registered or removed meanwhile shifts nothing.
    start = tools.findIndex((t) => t.name > after);
    if (start < 0) start = tools.length;
  }
  const page = tools.slice(start, start + size);
  const more = start + size < tools.length;
  return more ? { tools: page, nextCursor: cursorAfter(page[page.length - 1]!.name) } : { tools: page };
}

const CURSOR_PREFIX = 'tools:';

/** An opaque cursor: the last name served, base64url (clients must not build one). */
function cursorAfter(name: string): string {
  return Buffer.from(CURSOR_PREFIX + name, 'utf8').toString('base64url');
}

function cursorName(cursor: string): string | null {
  if (!/^[A-Za-z0-9_-]{1,200}$/.test(cursor)) return null;
  const text = Buffer.from(cursor, 'base64url').toString('utf8');
  if (!text.startsWith(CURSOR_PREFIX)) return null;
  const name = text.slice(CURSOR_PREFIX.length);
  return MODEL_TOOL_NAME.test(name) ? name : null;
}

/** True when `name` could be a listed tool at all (the MCP name rule). */
export function isModelToolName(name: string): boolean {
  return MODEL_TOOL_NAME.test(name);
}
