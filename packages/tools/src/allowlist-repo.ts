import { allows, intersect, parseAllowlist, unauthorized, type Allowlist } from '@hookyard/core';
import type { JsonSchema, ToolCallContext, ToolInfo, ToolRepo } from './types';

/**
 * The allowlist a run's calls go through: the deployment's (runtime) list,
 * narrowed by the hook's. A hook with no list gets the runtime list; a hook's
 * list can only narrow, never widen (intersection).
 */
export function resolveAllowlist(hookAllow: readonly string[] | undefined, runtimeAllow: readonly string[]): Allowlist {
  const runtime = parseAllowlist(runtimeAllow);
  return hookAllow === undefined ? runtime : intersect(parseAllowlist(hookAllow), runtime);
}

/** Describes a list for an error message, e.g. `[*, !local_shell]`. */
export function describeAllowlist(list: Allowlist): string {
  const parts = [...(list.all ? ['*'] : []), ...[...list.names].sort(), ...[...list.excluded].sort().map((n) => `!${n}`)];
  return `[${parts.join(', ')}]`;
}

/**
 * A repo seen through an allowlist: calls outside it are refused with
 * `unauthorized`, and such names are hidden from listing and schemas.
 */
export class AllowlistRepo implements ToolRepo {
  constructor(
    private readonly inner: ToolRepo,
    private readonly list: Allowlist,
  ) {}

  async exec(name: string, args: Record<string, unknown>, ctx: ToolCallContext): Promise<unknown> {
    if (!allows(this.list, name)) {
      throw unauthorized(`tool '${name}' is not allowed here (allowlist ${describeAllowlist(this.list)})`);
    }
    return this.inner.exec(name, args, ctx);
  }

  async names(): Promise<string[]> {
    return (await this.inner.names()).filter((n) => allows(this.list, n));
  }

  async schema(name: string): Promise<JsonSchema | undefined> {
    return allows(this.list, name) ? this.inner.schema(name) : undefined;
  }

  /** A provider's tools filtered one by one: a list may allow some operations of a service and not others. */
  async tools(providerName: string): Promise<ToolInfo[]> {
    return (await this.inner.tools(providerName)).filter((t) => allows(this.list, t.name));
  }
}
