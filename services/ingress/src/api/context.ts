import type { Clock, HookMetrics, Logger, Settings } from '@hookyard/core';
import type { RunBus, RunEventFeed, RunEventSink } from '@hookyard/bus';
import type { JqEngine } from '@hookyard/jq';
import type { Stores } from '@hookyard/store';
import type { ToolRepo } from '@hookyard/tools';
import type { SchemaChecker } from '../hooks/schema-checker';
import type { SettingsControl } from './settings-routes';

/** What every management route reads; built once by createIngressApp. */
export interface ApiContext {
  settings: Settings;
  stores: Stores;
  bus: RunBus;
  jq: JqEngine;
  tools: ToolRepo;
  metrics: HookMetrics;
  logger: Logger;
  clock: Clock;
  schemas: SchemaChecker;
  /** Run summaries for `GET /api/events`; absent, that route answers 503. */
  runEvents?: RunEventFeed;
  /** Where operators' transitions (retried, discarded, replayed, woken) are announced; absent, they are not. */
  events?: RunEventSink;
  /** Called after a verifier binding changed, so the door's cache does not serve the old one. */
  onVerifierChanged(topic: string): void;
  /** This process's live settings (GET /api/settings, POST /api/settings/reload); absent, those routes answer 503. */
  settingsControl?: SettingsControl;
  /** Called after a dedupe key changed, for the same reason. */
  onDedupeChanged(topic: string): void;
}
