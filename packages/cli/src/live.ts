import { Counter, Gauge } from 'prom-client';
import type { HookMetrics, LiveSettings, Logger, ReloadResult, ReloadTrigger, SettingChange } from '@hookyard/core';

/** What a reload re-applies that was captured at boot (everything else reads the shared settings object at use). */
export interface LiveTargets {
  logger: Logger;
  /** The executor of this process: HOOKS_MAX_WORKERS from the next run admitted. */
  executor(): { resize(maxWorkers: number): void } | null;
  /** The NATS door of this process, whose concurrency is HOOKS_MAX_WORKERS too. */
  natsIngest(): { resize(concurrency: number): void } | null;
  /** The flood limiter of this process: door and API rates and bursts. */
  limiter(): { setRates(r: { rate: number; burst: number; apiRate: number; apiBurst?: number; agentRate?: number; agentBurst?: number }): void } | null;
}

const list = (changes: SettingChange[]) => (changes.length ? changes.map((c) => c.variable).join(', ') : 'nothing');

/**
 * Connects a process's live settings to what it runs: the listeners that
 * re-apply boot-captured values, the gauge `tai42_hook_runs_config_generation`
 * and the counter `tai42_hook_runs_config_reloads_total{outcome}`, and one
 * `reload(trigger)` (SIGHUP, the file watch and the API all use it) that logs
 * every outcome: INFO with what changed, WARN naming the refused variable.
 */
export function connectLiveSettings(live: LiveSettings, metrics: HookMetrics, targets: LiveTargets): (trigger: ReloadTrigger) => ReloadResult {
  const log = targets.logger;
  new Gauge({
    name: 'tai42_hook_runs_config_generation',
    help: 'Configuration generation of this process: 1 at boot, +1 per settings reload that applied something',
    registers: [metrics.registry],
    collect() {
      this.set(live.generation());
    },
  });
  const reloads = new Counter({
    name: 'tai42_hook_runs_config_reloads_total',
    help: 'Settings reloads of this process by outcome (applied, unchanged, refused)',
    labelNames: ['outcome'],
    registers: [metrics.registry],
  });
  for (const outcome of ['applied', 'unchanged', 'refused']) reloads.inc({ outcome }, 0);

  live.onApply((changed, s) => {
    if (changed.has('logLevel')) log.level = s.logLevel;
    if (changed.has('maxWorkers')) {
      targets.executor()?.resize(s.maxWorkers);
      targets.natsIngest()?.resize(s.maxWorkers);
    }
    if ((['doorRate', 'doorBurst', 'apiRate', 'apiBurst', 'agentRate', 'agentBurst'] as const).some((f) => changed.has(f))) {
      const { doorRate: rate, doorBurst: burst, apiRate, apiBurst, agentRate, agentBurst } = s;
      targets.limiter()?.setRates({ rate, burst, apiRate, apiBurst, agentRate, agentBurst });
    }
  });

  return (trigger) => {
    const r = live.reload(trigger);
    if (!r.ok) {
      reloads.inc({ outcome: 'refused' });
      log.warn({ trigger, variable: r.variable, generation: r.generation }, `settings reload refused, nothing applied: ${r.message}`);
      return r;
    }
    reloads.inc({ outcome: r.applied.length > 0 ? 'applied' : 'unchanged' });
    log.info(
      { trigger, generation: r.generation, applied: r.applied, restart_needed: r.restart_needed, env_overrides_file: r.env_overrides_file },
      `settings reloaded (generation ${r.generation}): applied ${list(r.applied)}; needs a restart: ${list(r.restart_needed)}` +
        (r.env_overrides_file.length ? `; the environment overrides the file for ${r.env_overrides_file.join(', ')}` : ''),
    );
    return r;
  };
}
