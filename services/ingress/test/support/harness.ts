import type { AddressInfo } from 'node:net';
import type { Server } from 'node:http';
import { createMetrics, loadSettings, silentLogger, type HookMetrics, type Settings } from '@hookyard/core';
import { createMemoryBus, type RunBus } from '@hookyard/bus';
import { createMemoryStores, type Stores } from '@hookyard/store';
import type { JqEngine } from '@hookyard/jq';
import type { ToolRepo } from '@hookyard/tools';
import { createIngressApp, type IngressDeps } from '../../src/start';
import { fakeJq, testTools } from './fakes';

export const TOKENS = {
  reader: 'reader-token-0123456789abcdef',
  operator: 'operator-token-0123456789abcdef',
  admin: 'admin-token-0123456789abcdef',
};

/** A bus that records what was published and can be told to refuse. */
export interface RecordingBus extends RunBus {
  published: string[][];
  failNext: boolean;
}

export function recordingBus(inner: RunBus = createMemoryBus()): RecordingBus {
  const bus: RecordingBus = {
    published: [],
    failNext: false,
    kind: inner.kind,
    async publish(ids) {
      if (bus.failNext) {
        bus.failNext = false;
        throw new Error('bus refused');
      }
      bus.published.push([...ids]);
    },
    subscribe: (h, o) => inner.subscribe(h, o),
    ping: () => inner.ping(),
    close: () => inner.close(),
  };
  return bus;
}

export interface Harness {
  url: string;
  /** The express app served (tests read its router stack). */
  app: ReturnType<typeof createIngressApp>;
  stores: Stores;
  bus: RecordingBus;
  metrics: HookMetrics;
  settings: Settings;
  close(): Promise<void>;
  /** fetch against the app; `role` adds that role's bearer token. */
  call(
    path: string,
    init?: RequestInit & { role?: keyof typeof TOKENS; json?: unknown },
  ): Promise<{ status: number; headers: Headers; text: string; body: any }>;
}

export interface HarnessOptions {
  settings?: Partial<Settings>;
  stores?: Stores;
  jq?: JqEngine;
  tools?: ToolRepo;
  deps?: Partial<IngressDeps>;
}

/** The whole ingress app on 127.0.0.1, port 0, over in-memory store and bus. */
export async function startHarness(opts: HarnessOptions = {}): Promise<Harness> {
  const settings = loadSettings(
    {},
    {
      apiTokens: [
        { role: 'reader', token: TOKENS.reader },
        { role: 'operator', token: TOKENS.operator },
        { role: 'admin', token: TOKENS.admin },
      ],
      ...opts.settings,
    },
  );
  const stores = opts.stores ?? createMemoryStores({ stateMaxBytes: settings.stateMaxBytes });
  const bus = recordingBus();
  const metrics = createMetrics({ defaultMetrics: false });
  const app = createIngressApp({
    // Every answer of a declared route is held to its declared shape: drift fails the test that made it.
    validateAnswers: true,
    settings,
    stores,
    bus,
    jq: opts.jq ?? fakeJq(),
    tools: opts.tools ?? testTools(),
    metrics,
    logger: silentLogger(),
    ...opts.deps,
  });
  const server: Server = await new Promise((resolve) => {
    const s = app.listen(0, '127.0.0.1', () => resolve(s));
  });
  const url = `http://127.0.0.1:${(server.address() as AddressInfo).port}`;
  return {
    url,
    app,
    stores,
    bus,
    metrics,
    settings,
    async close() {
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
      await bus.close();
    },
    async call(path, init = {}) {
      const { role, json, ...rest } = init;
      const headers = new Headers(rest.headers);
      if (role) headers.set('authorization', `Bearer ${TOKENS[role]}`);
      let body = rest.body;
      if (json !== undefined) {
        headers.set('content-type', 'application/json');
        body = JSON.stringify(json);
      }
      const res = await fetch(url + path, { ...rest, headers, body });
      const text = await res.text();
      let parsed: unknown;
      try {
        parsed = JSON.parse(text);
      } catch {
        parsed = undefined;
      }
      return { status: res.status, headers: res.headers, text, body: parsed };
    },
  };
}

/** A hook record for tests (tool `echo`). */
export function hook(name: string, topic: string, extra: Record<string, unknown> = {}): Record<string, unknown> {
  return { name, topic, tool: 'echo', tool_kwargs: {}, ...extra };
}
