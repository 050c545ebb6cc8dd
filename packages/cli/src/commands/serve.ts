import { Command, Option } from 'commander';
import { checkSettingsAtBoot, resolveSettings } from '@hookyard/core';
import { CliError, EXIT } from '../client';
import { applyHeapDefaults } from '../heap';
import { IN_MEMORY, describeHeld } from '../inventory';
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
      // Before anything allocates much: V8's heap growth, old and young generation, for a smaller RSS (see heap.ts).
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
      const embedded = served.runtime.stores.kind === 'memory';
      if (embedded) process.stderr.write(embeddedBanner(served.url, served.apiUrl, served.runtime.generatedToken));
      let signals = 0;
      const onSignal = (sig: string) => {
        signals += 1;
        if (signals > 1) {
          process.stderr.write(`hookyard: second ${sig}: exiting now\n`);
          process.exit(1);
        }
        const busy = served.inFlight();
        const grace = served.runtime.settings.shutdownGraceMs / 1000;
        process.stderr.write(
          `hookyard: ${sig}: stopping; ${busy === 0 ? 'no run in flight' : `waiting up to ${grace} s (HOOKS_RUN_SHUTDOWN_GRACE_SECONDS) for ${busy} run${busy === 1 ? '' : 's'} in flight`}` +
            `${busy === 0 ? '' : `, then handing back the rest`}; ${sig === 'SIGINT' ? 'Ctrl-C' : sig} again exits at once\n`,
        );
        served.stop().then(
          ({ dropped }) => {
            if (dropped) process.stderr.write(`hookyard: stopped; lost with the in-memory store: ${dropped.length ? describeHeld(dropped) : 'nothing'}\n`);
            process.exit(0);
          },
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

/**
 * What the embedded default prints at start (stderr): where it listens, the
 * console, the token (and how to keep one), what lives only in this process
 * and how to keep it.
 */
export function embeddedBanner(url: string, apiUrl: string, generatedToken: string | null): string {
  const lines = ['', 'Hookyard embedded default: one process, in-memory store and bus', `  listening on ${url}`, `  console:     ${apiUrl}/console`];
  if (generatedToken) {
    lines.push(
      `  admin token: ${generatedToken} (made up at this start; set HOOKS_API_TOKENS=admin:<a long random token> to keep one across restarts)`,
      `  export HOOKYARD_URL=${apiUrl} HOOKYARD_TOKEN=${generatedToken}`,
    );
  } else lines.push(`  tokens from HOOKS_API_TOKENS; export HOOKYARD_URL=${apiUrl} HOOKYARD_TOKEN=<yours>`);
  lines.push(
    `  only in memory, lost when this process stops: ${IN_MEMORY}`,
    '  to keep them, point HOOKS_REDIS_URL at a Redis and HOOKS_NATS_URL at NATS (e.g. redis://127.0.0.1:6379 and nats://127.0.0.1:4222)',
    '',
    '',
  );
  return lines.join('\n');
}
