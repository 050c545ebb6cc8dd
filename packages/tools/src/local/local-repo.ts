import { notFound } from '@hookyard/core';
import type { JsonSchema, ToolCallContext, ToolInfo, ToolRepo } from '../types';

/** An in-process tool: its description, schema and body. */
export interface LocalTool {
  info: ToolInfo;
  run(args: Record<string, unknown>, ctx: ToolCallContext): Promise<unknown>;
}

/** The in-process tools, held in a map. */
export class LocalRepo implements ToolRepo {
  private readonly byName = new Map<string, LocalTool>();

  constructor(tools: readonly LocalTool[]) {
    for (const t of tools) this.byName.set(t.info.name, t);
  }

  async exec(name: string, args: Record<string, unknown>, ctx: ToolCallContext): Promise<unknown> {
    const tool = this.byName.get(name);
    if (!tool) throw notFound(`tool '${name}' is not a local tool`);
    return tool.run(args, ctx);
  }

  async names(): Promise<string[]> {
    return [...this.byName.keys()];
  }

  async schema(name: string): Promise<JsonSchema | undefined> {
    return this.byName.get(name)?.info.parameters;
  }

  async tools(providerName: string): Promise<ToolInfo[]> {
    const t = this.byName.get(providerName);
    return t ? [t.info] : [];
  }
}
