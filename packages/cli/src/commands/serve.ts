import { Command, Option } from 'commander';
import { checkSettingsAtBoot, resolveSettings } from '@hookyard/core';
import { CliError, EXIT } from '../client';
import { applyHeapDefaults } from '../heap';
import type { RoleName } from '../runtime';
import { tracingConfig } from '../tracing';

/** The roles of `serve --role`; kept here so the CLI does not load the runtime to print help. */
export const ROLES = ['ingress', 'scheduler', 'executor', 'all'] as const satisfies readonly RoleName[];

/**
 * `hookyard serve`: settings are read and checked before anything starts, so a bad value
 * (SettingsError, exit 2) or a split role without Redis and NATS (exit 2) is one line.
 */
export function serveCommand(program: Command): void {
  program
    .command('serve')
    .description('run Hookyard: one role, or all of them in one process (the embedded default when no Redis/NATS is set)')
    .addOption(new Option('--role <role>', 'which role this process plays').choices([...ROLES]).default('all'))
    .addHelpText(
      'after',
      '\nSettings come from the environment and HOOKS_CONFIG_FILE (the environment wins): see `hookyard settings`.\nSIGHUP, a change of that file and POST /api/settings/reload re-apply the ones that can change live.',
    )
    .action(async (opts: { role: RoleName }) => {
      // Before anything allocates much: the old generation's growth, for a smaller peak RSS (see heap.ts).
      applyHeapDefaults();
      const resolved = resolveSettings(process.env);
      const settings = resolved.settings;
      checkSettingsAtBoot(settings);
      // The OTEL_* variables that turn tracing on are checked as strictly (exit 2 naming the variable).
      tracingConfig(process.env);
      // The runtime pulls in the store, bus, jq and tools: loaded only when serving.
      const { embeddedRefusal } = await import('../runtime');
      const refusal = embeddedRefusal(opts.role, settings);
      if (refusal) throw new CliError(refusal, EXIT.usage);
      const { serve } = await import('../serve');
      const served = await serve(opts.role, process.env, undefined, resolved);
      const token = served.runtime.generatedToken;
      if (token) {
        process.stderr.write(
          `\nHookyard embedded default (in-memory store and bus; runs are lost when this process stops)\n` +
            `  listening on ${served.url}\n  admin token: ${token}\n` +
            `  export HOOKYARD_URL=${served.apiUrl} HOOKYARD_TOKEN=${token}\n\n`,
        );
      }
      let signals = 0;
      const onSignal = (sig: string) => {
        signals += 1;
        if (signals > 1) {
          process.stderr.write(`hookyard: second ${sig}: exiting now\n`);
          process.exit(1);
        }
        served.stop().then(
          () => process.exit(0),
          (err: unknown) => {
            process.stderr.write(`hookyard: shutdown failed: ${(err as Error).message}\n`);
            process.exit(1);
          },
        );
      };
      // Each process reloads itself: in a split deployment, signal (or let the file watch reach) every role.
      process.on('SIGHUP', () => {
        if (signals === 0) served.reload('sighup');
      });
      process.on('SIGTERM', () => onSignal('SIGTERM'));
      process.on('SIGINT', () => onSignal('SIGINT'));
    });
}
