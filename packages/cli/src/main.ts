import { Command, CommanderError, Option } from 'commander';
import { SettingsError, settingsDocs } from '@hookyard/core';
import { ApiClient, CliError, EXIT } from './client';
import { hooksCommand } from './commands/hooks';
import { runsCommand } from './commands/runs';
import { toolsCommand } from './commands/tools';
import type { CliContext } from './context';
import { ROLE_NAMES, type RoleName } from './runtime';
import { printJson } from './output';

const VERSION = '0.1.0';

/** Builds the `hookyard` command tree. Exported for tests. */
export function buildProgram(): Command {
  const program = new Command('hookyard')
    .description('Hookyard: durable webhook-to-tool dispatch')
    .version(VERSION)
    .option('--url <url>', 'management API base URL (env HOOKYARD_URL)', process.env.HOOKYARD_URL ?? 'http://127.0.0.1:8080')
    .option('--token <token>', 'management API token (env HOOKYARD_TOKEN)')
    .option('--json', 'machine-readable JSON output')
    .showHelpAfterError('(run with --help for usage)')
    .exitOverride()
    .configureOutput({ outputError: (str, write) => write(str) });

  const ctx: CliContext = {
    client: () => {
      const o = program.opts<{ url: string; token?: string }>();
      return new ApiClient({ url: o.url, token: o.token ?? process.env.HOOKYARD_TOKEN });
    },
    json: () => Boolean(program.opts<{ json?: boolean }>().json),
  };

  program
    .command('serve')
    .description('run Hookyard: one role, or all of them in one process (the embedded default when no Redis/NATS is set)')
    .addOption(new Option('--role <role>', 'which role this process plays').choices([...ROLE_NAMES]).default('all'))
    .action(async (opts: { role: RoleName }) => {
      const { serve } = await import('./serve');
      const served = await serve(opts.role, process.env);
      const token = served.runtime.generatedToken;
      if (token) {
        process.stderr.write(
          `\nHookyard embedded default (in-memory store and bus; runs are lost when this process stops)\n` +
            `  listening on ${served.url}\n  admin token: ${token}\n` +
            `  export HOOKYARD_TOKEN=${token}\n\n`,
        );
      }
      let signals = 0;
      const onSignal = (sig: string) => {
        signals += 1;
        if (signals > 1) {
          process.stderr.write(`second ${sig}: exiting now\n`);
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
      process.on('SIGTERM', () => onSignal('SIGTERM'));
      process.on('SIGINT', () => onSignal('SIGINT'));
    });

  program
    .command('settings')
    .description('list every setting (environment variable) with its default')
    .action(() => {
      if (ctx.json()) return printJson(settingsDocs());
      for (const line of settingsDocs()) process.stdout.write(`${line}\n`);
    });

  hooksCommand(program, ctx);
  runsCommand(program, ctx);
  toolsCommand(program, ctx);
  return program;
}

/** Runs the CLI; exits the process with 0, 1 (refused), 2 (usage) or 3 (unreachable). */
export async function main(argv: string[]): Promise<void> {
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    if (err instanceof CommanderError) {
      // Help and version are not errors.
      if (err.code === 'commander.helpDisplayed' || err.code === 'commander.version' || err.code === 'commander.help') process.exit(0);
      process.exit(EXIT.usage);
    }
    if (err instanceof CliError) {
      process.stderr.write(`hookyard: ${err.message}\n`);
      for (const d of err.details) process.stderr.write(`  - ${d}\n`);
      process.exit(err.exitCode);
    }
    if (err instanceof SettingsError) {
      process.stderr.write(`hookyard: bad setting ${err.message}\n`);
      process.exit(EXIT.usage);
    }
    process.stderr.write(`hookyard: ${err instanceof Error ? err.message : String(err)}\n`);
    process.exit(EXIT.refused);
  }
}
