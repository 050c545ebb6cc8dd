import { randomBytes } from 'node:crypto';
import { SettingsError, createMetrics, createSecretResolver, secretScopeOf, unavailable, type Logger, type Settings } from '@hookyard/core';
import {
  createDiscoveryHub,
  createDiscoveryRequester,
  createDiscoveryResponder,
  createJetStreamBus,
  createMemoryBus,
  createRunEventHub,
  createRunEventPublisher,
  createRunEventSubscriber,
  natsCredentials,
  type NatsCredentials,
  type RunEventFeed,
  type RunEventPublisher,
} from '@hookyard/bus';
import { createJqEngine } from '@hookyard/jq';
import type { RoleDeps } from '@hookyard/role';
import { createMemoryStores, createRedisStores, migrateFreeFormStates, type Stores } from '@hookyard/store';
import { MultiRepo, createCatalogueToolRepo, createDiscoveryAnswer, createToolRepo, type ToolRepo } from '@hookyard/tools';

export type RoleName = 'ingress' | 'scheduler' | 'executor' | 'all';
export const ROLE_NAMES: readonly RoleName[] = ['ingress', 'scheduler', 'executor', 'all'];

/**
 * Everything a role needs, built once from settings: the role's deps (`tools`
 * is every provider only in a process that calls tools: an executor, or
 * `all`; the other roles get the catalogue repo there, so no provider that
 * dials services or starts MCP stdio servers exists in their process) and what
 * only `serve` holds.
 */
export interface Runtime extends RoleDeps {
  /**
   * What the ingress describes and checks hooks against: the local tools and
   * the registrations as the executors describe them (discovery requests on
   * `<prefix>.discovery.request`, or in process in the embedded default).
   */
  catalogue: ToolRepo;
  /** The token the embedded default made up because none was configured. */
  generatedToken: string | null;
  /** Who this process is to NATS (resolved from the HOOKS_NATS_* credential settings once, at start); every NATS connection takes them. */
  natsCredentials?: NatsCredentials;
  close(): Promise<void>;
}

/** Why a split deployment cannot run on the in-memory store and bus; null when it can. */
export function embeddedRefusal(role: RoleName, settings: Settings): string | null {
  if (role === 'all') {
    // Half shared is worse than none: a shared bus over a per-process store (or the reverse) lets
    // two such processes take each other's runs and find nothing, so the runs stay pending.
    if (Boolean(settings.redisUrl) === Boolean(settings.natsUrl)) return null;
    const [set, unset] = settings.redisUrl ? ['HOOKS_REDIS_URL', 'HOOKS_NATS_URL'] : ['HOOKS_NATS_URL', 'HOOKS_REDIS_URL'];
    return (
      `role 'all' with ${set} set needs ${unset} too: a shared ${settings.redisUrl ? 'store' : 'bus'} with an in-memory ${settings.redisUrl ? 'bus' : 'store'} ` +
      `would let processes take each other's runs; set both, or neither for the embedded default`
    );
  }
  const missing = [!settings.redisUrl && 'HOOKS_REDIS_URL', !settings.natsUrl && 'HOOKS_NATS_URL'].filter(Boolean);
  if (missing.length === 0) return null;
  return (
    `role '${role}' runs as one of several processes and needs a shared store and bus; set ${missing.join(' and ')}` +
    ` (the in-memory form lives in one process only: use --role all for the embedded default)`
  );
}

/** The same refusal as a SettingsError naming the variable to set, for a reload that would leave the in-memory form shared. */
export function embeddedRefusalError(role: RoleName, settings: Settings): SettingsError | null {
  const refusal = embeddedRefusal(role, settings);
  if (refusal === null) return null;
  const variable = !settings.redisUrl ? 'HOOKS_REDIS_URL' : 'HOOKS_NATS_URL';
  return new SettingsError(variable, refusal);
}

/**
 * Builds what the role runs on. `settings` is the process's one settings
 * object (live reloads write into it); a token made up for the embedded
 * default is added to it in place.
 */
export async function buildRuntime(role: RoleName, settings: Settings, logger: Logger): Promise<Runtime> {
  const refusal = embeddedRefusal(role, settings);
  if (refusal) throw new Error(refusal);
  let generatedToken: string | null = null;
  if (settings.apiTokens.length === 0 && (role === 'all' || role === 'ingress')) {
    if (settings.redisUrl || role !== 'all') {
      throw new SettingsError('HOOKS_API_TOKENS', 'no management token configured; set role:token pairs (only the embedded default makes one up)');
    }
    generatedToken = randomBytes(24).toString('base64url');
    settings.apiTokens = [{ role: 'admin', token: generatedToken }];
  }
  const closers: (() => Promise<void>)[] = [];
  try {
    const stores = settings.redisUrl
      ? await createRedisStores({
          url: settings.redisUrl,
          cluster: settings.redisCluster,
          prefix: settings.keyPrefix,
          partitions: settings.partitions,
          stateMaxBytes: settings.stateMaxBytes,
          logger,
        })
      : createMemoryStores({ stateMaxBytes: settings.stateMaxBytes });
    closers.push(() => stores.close());
    if (role === 'ingress' || role === 'all') await upgradeStates(stores, logger);
    // Secret references read as every other one is (HOOKS_SECRET_ENV_PREFIX, HOOKS_SECRET_DIRS).
    const credentials = settings.natsUrl ? await natsCredentials(settings, createSecretResolver({ scope: secretScopeOf(settings) }), role) : undefined;
    const bus = settings.natsUrl
      ? await createJetStreamBus({
          url: settings.natsUrl,
          prefix: settings.natsPrefix,
          replicas: settings.natsReplicas,
          storage: settings.natsStorage,
          logger,
          credentials,
        })
      : createMemoryBus();
    closers.push(() => bus.close());
    const jq = await createJqEngine({ timeoutMs: settings.jqTimeoutMs, logger });
    closers.push(() => jq.close());
    let events: RunEventPublisher | undefined;
    if (settings.natsUrl) {
      const publisher = await createRunEventPublisher({ url: settings.natsUrl, prefix: settings.natsPrefix, logger, credentials });
      closers.push(() => publisher.close());
      events = publisher;
    }
    let runEvents: RunEventFeed | undefined;
    if (settings.natsUrl && (role === 'ingress' || role === 'all')) {
      const feed = await createRunEventSubscriber({ url: settings.natsUrl, prefix: settings.natsPrefix, logger, credentials });
      closers.push(() => feed.close());
      runEvents = feed;
    } else if (!settings.natsUrl && role === 'all') {
      // One process: the executor and scheduler announce straight to the ingress's stream.
      const hub = createRunEventHub();
      closers.push(() => hub.close());
      events = hub;
      runEvents = hub;
    }
    // Only an executor holds the providers that dial services and spawn MCP stdio servers; the
    // ingress asks the executors (the internet-facing process never reaches a registered service).
    const callsTools = role === 'executor' || role === 'all';
    const full = callsTools ? createToolRepo({ settings, toolStore: stores.tools, states: stores.states, logger }) : null;
    if (full) closers.push(() => full.close());
    let ask: (request: unknown, timeoutMs: number) => Promise<unknown> = async () => {
      throw unavailable(`role '${role}' asks no executor for discovery`);
    };
    const answer = full ? createDiscoveryAnswer({ repo: full, toolStore: stores.tools, logger }) : null;
    if (settings.natsUrl) {
      if (answer) {
        const responder = await createDiscoveryResponder({ url: settings.natsUrl, prefix: settings.natsPrefix, logger, credentials }, answer);
        closers.push(() => responder.close());
      }
      if (role === 'ingress' || role === 'all') {
        const requester = await createDiscoveryRequester({ url: settings.natsUrl, prefix: settings.natsPrefix, logger, credentials });
        closers.push(() => requester.close());
        ask = (request, timeoutMs) => requester.ask(request, timeoutMs);
      }
    } else if (role === 'all' && answer) {
      // The embedded default: the executor in this process answers.
      const hub = createDiscoveryHub();
      const served = hub.serve(answer);
      closers.push(async () => {
        await served.close();
        await hub.close();
      });
      ask = (request, timeoutMs) => hub.ask(request, timeoutMs);
    }
    // The scheduler calls and describes no tool: an empty repo, and its process never loads the providers.
    const catalogue =
      role === 'scheduler' ? new MultiRepo([]) : createCatalogueToolRepo({ settings, toolStore: stores.tools, states: stores.states, logger, ask });
    closers.push(() => catalogue.close());
    const tools = full ?? catalogue;
    const metrics = createMetrics({ role });
    return {
      settings,
      stores,
      bus,
      jq,
      tools,
      catalogue,
      metrics,
      logger,
      ...(events ? { events } : {}),
      ...(runEvents ? { runEvents } : {}),
      generatedToken,
      ...(credentials ? { natsCredentials: credentials } : {}),
      async close() {
        for (const c of closers.reverse()) await c().catch((err) => logger.warn({ err }, 'close failed'));
      },
    };
  } catch (err) {
    for (const c of closers.reverse()) await c().catch(() => undefined);
    throw err;
  }
}

/**
 * Free-form subject state from before declared states, brought up to them at
 * start (migrateFreeFormStates: idempotent, so every ingress start may run it).
 * A store that cannot be reached now is told and left for the next start: until
 * then a write to a state it has not declared yet is refused (not_found).
 */
async function upgradeStates(stores: Stores, logger: Logger): Promise<void> {
  try {
    const m = await migrateFreeFormStates(stores, Date.now());
    if (m.bound.length || m.declared.length || m.refused.length)
      logger.info({ ...m }, 'subject state upgraded: free-form states declared open, hooks bound to the whole document');
    for (const r of m.refused) logger.warn(r, 'subject state upgrade: a hook could not be bound; register it again with an attach path');
  } catch (err) {
    logger.warn({ err: (err as Error).message }, 'subject state upgrade did not run (the store is unreachable); it runs again at the next start');
  }
}
