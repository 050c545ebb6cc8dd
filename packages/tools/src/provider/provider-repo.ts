import {
  createSecretResolver,
  markNotSent,
  notFound,
  toHookyardError,
  parseAllowlist,
  type Allowlist,
  type Logger,
  type RemoteToolRecord,
  type SecretResolver,
  type ToolStore,
} from '@hookyard/core';
import { resolveInjected, tellRecordSecrets } from '../secret-values';
import type { JsonSchema, ToolCallContext, ToolInfo, ToolRepo } from '../types';
import { applyInjected, declaredNames, stripInjected } from './injected';
import { discoveredToolName, nameSlug, providerOf } from './naming';
import type { DiscoveredTool, ToolProvider } from './types';

export interface ProviderRepoOptions {
  /** Read on every lookup: a registration is served at once in every process. */
  toolStore: Pick<ToolStore, 'listTools' | 'getTool'>;
  logger: Logger;
  /** One provider per record kind it serves. */
  providers: readonly ToolProvider[];
  /** Resolves `{"secret": ...}` injected values at call time (default: env and mounted files). */
  secrets?: SecretResolver;
}

interface Entry {
  info: ToolInfo;
  tool: DiscoveredTool;
}

/**
 * The registered services whose tools are discovered (kinds `openapi`, `mcp`,
 * `grpc`): one Hookyard tool per operation, named `<record>__<operation>`
 * (discoveredToolName), narrowed by the record's `operations`, with its
 * `injected` values hidden from the schema and applied at call time. Reads the
 * store on every lookup, like RemoteRepo, so a registration is callable at
 * once in every process; discovery itself is cached by each provider.
 */
export class ProviderRepo implements ToolRepo {
  private readonly byKind = new Map<string, ToolProvider>();
  /** Name clashes already reported, so a listing every call does not repeat the warning. */
  private readonly warned = new Set<string>();
  private readonly secrets: SecretResolver;
  /** The records served so far (listed or looked up), by name, with their kind: one gone since is released by its provider. */
  private readonly listed = new Map<string, string>();

  constructor(private readonly options: ProviderRepoOptions) {
    this.secrets = options.secrets ?? createSecretResolver();
    for (const p of options.providers) this.byKind.set(p.kind, p);
  }

  async exec(name: string, args: Record<string, unknown>, ctx: ToolCallContext): Promise<unknown> {
    let record: RemoteToolRecord | null;
    let key: string;
    let final: Record<string, unknown>;
    try {
      const provider = providerOf(name);
      record = provider === undefined ? null : await this.record(provider);
      if (!record) throw notFound(`tool '${name}' is not a registered tool`);
      // Before discovery: a cold cache fetches the document, reflects or connects with the record's secrets.
      await tellRecordSecrets(this.secrets, record, ctx.onSecret);
      const entry = (await this.entries(record)).find((e) => e.info.name === name);
      if (!entry) throw notFound(`tool '${name}' is not an operation of ${record.kind} tool '${record.name}'`);
      const declared = declaredNames(entry.tool.parameters);
      // Only the references this tool receives are resolved, now, per call.
      const injected = await resolveInjected(this.secrets, `tool '${name}'`, record.injected, declared, ctx.onSecret);
      final = applyInjected(args, injected, declared);
      key = entry.tool.key;
    } catch (err) {
      // Nothing was sent yet: the record, the discovery (a server that would not start or list) or a credential failed.
      throw markNotSent(toHookyardError(err));
    }
    return this.byKind.get(record.kind)!.call(record, key, final, ctx);
  }

  async names(): Promise<string[]> {
    const records = (await this.options.toolStore.listTools()).filter((r) => this.byKind.has(r.kind));
    this.releaseGone(records);
    const settled = await Promise.allSettled(records.map((r) => this.entries(r)));
    const out: string[] = [];
    settled.forEach((s, i) => {
      // The provider logged why; one unreachable service must not hide the others.
      if (s.status === 'fulfilled') out.push(...s.value.map((e) => e.info.name));
      else this.options.logger.debug({ err: s.reason as unknown, tool: records[i]!.name }, 'discovered tool service skipped while listing');
    });
    return out.sort();
  }

  async schema(name: string): Promise<JsonSchema | undefined> {
    return (await this.tools(name)).find((t) => t.name === name)?.parameters;
  }

  /** A record name lists all of its operations; an operation's tool name lists that one. */
  async tools(providerName: string): Promise<ToolInfo[]> {
    const record = await this.record(providerName);
    if (record) return (await this.entries(record)).map((e) => e.info);
    const provider = providerOf(providerName);
    const owner = provider === undefined ? null : await this.record(provider);
    if (!owner) return [];
    return (await this.entries(owner)).filter((e) => e.info.name === providerName).map((e) => e.info);
  }

  async discoverRecord(record: RemoteToolRecord): Promise<string[] | undefined> {
    const provider = this.byKind.get(record.kind);
    if (!provider) return undefined;
    const discovered = await (provider.check ? provider.check(record) : provider.discover(record));
    return this.entriesOf(record, discovered).map((e) => e.info.name);
  }

  async close(): Promise<void> {
    await Promise.allSettled([...this.byKind.values()].map((p) => p.close()));
  }

  /** A registration removed (or moved to another kind) leaves no connection or cache behind in its provider. */
  private releaseGone(records: readonly RemoteToolRecord[]): void {
    const now = new Map(records.map((r) => [r.name, r.kind] as const));
    for (const [name, kind] of this.listed) if (now.get(name) !== kind) this.byKind.get(kind)?.release?.(name);
    this.listed.clear();
    for (const [name, kind] of now) this.listed.set(name, kind);
  }

  private async record(name: string): Promise<RemoteToolRecord | null> {
    const got = await this.options.toolStore.getTool(name);
    const r = got && this.byKind.has(got.kind) ? got : null;
    const kind = this.listed.get(name);
    if (kind !== undefined && kind !== r?.kind) {
      this.byKind.get(kind)?.release?.(name);
      this.listed.delete(name);
    }
    if (r) this.listed.set(name, r.kind);
    return r;
  }

  private async entries(record: RemoteToolRecord): Promise<Entry[]> {
    return this.entriesOf(record, await this.byKind.get(record.kind)!.discover(record));
  }

  private entriesOf(record: RemoteToolRecord, discovered: readonly DiscoveredTool[]): Entry[] {
    const filter = parseAllowlist(record.operations ?? ['*']);
    const injected = Object.keys(record.injected ?? {});
    const out: Entry[] = [];
    const seen = new Set<string>();
    for (const tool of discovered) {
      if (!exposed(filter, tool)) continue;
      const name = discoveredToolName(record.name, tool);
      if (seen.has(name)) {
        const clash = `${record.name}/${tool.key}`;
        if (!this.warned.has(clash)) {
          this.warned.add(clash);
          this.options.logger.warn({ tool: record.name, operation: tool.key, name }, 'two operations map to one tool name; the later one is not exposed');
        }
        continue;
      }
      seen.add(name);
      const info: ToolInfo = {
        name,
        description: tool.description,
        parameters: stripInjected(tool.parameters, injected),
        provider: record.kind,
        crashResumable: record.crash_resumable ?? false,
      };
      if (record.retry) info.retry = record.retry;
      out.push({ info, tool });
    }
    return out;
  }
}

/** How many of `discovered` the record exposes as tools (its `operations` filter, one tool per name). */
export function exposedToolCount(record: RemoteToolRecord, discovered: readonly Pick<DiscoveredTool, 'key' | 'slug'>[]): number {
  const filter = parseAllowlist(record.operations ?? ['*']);
  const names = new Set<string>();
  for (const tool of discovered) if (exposed(filter, tool)) names.add(discoveredToolName(record.name, tool));
  return names.size;
}

/** The `operations` filter matches an operation by its own name or by its tool-name part. */
function exposed(filter: Allowlist, tool: Pick<DiscoveredTool, 'key' | 'slug'>): boolean {
  const { key } = tool;
  const slug = tool.slug ?? nameSlug(key);
  if (filter.excluded.has(key) || filter.excluded.has(slug)) return false;
  return filter.all || filter.names.has(key) || filter.names.has(slug);
}
