import { readFileSync } from 'node:fs';
import { join } from 'node:path';
import { Command, CommanderError } from 'commander';
import { SettingsError } from '@hookyard/core';
import { ApiClient, CliError, DEFAULT_URL, EXIT, oneLine } from './client';
import { completionCommand } from './commands/completion';
import { approvalsCommand, interactionAnswerCommands } from './commands/approvals';
import { callCommand } from './commands/call';
import { hooksCommand } from './commands/hooks';
import { runsCommand } from './commands/runs';
import { interactionsCommand } from './commands/interactions';
import { statesCommand } from './commands/states';
import { sendCommand } from './commands/send';
import { unroutedCommand } from './commands/unrouted';
import { agentsCommand } from './commands/agents';
import { auditCommand } from './commands/audit';
import { serveCommand } from './commands/serve';
import { settingsCommand } from './commands/settings';
import { templatesCommand } from './commands/templates';
import { toolsCommand } from './commands/tools';
import type { CliContext } from './context';
import { printJson } from './output';
import { printErrorJson, wantsJson } from './error-json';

/** The version in packages/cli/package.json (dist/main.js sits one level below it). */
function cliVersion(): string {
  try {
    return (JSON.parse(readFileSync(join(__dirname, '..', 'package.json'), 'utf8')) as { version: string }).version;
  } catch {
    return 'unknown';
  }
}

interface GlobalOptions {
  url?: string;
  token?: string;
  json?: boolean;
}

/** Builds the `hookyard` command tree. Exported for tests. */
export function buildProgram(): Command {
  const program = new Command('hookyard')
    .description('Hookyard: durable webhook-to-tool dispatch')
    .version(cliVersion(), '-V, --version', 'print the version')
    .option('--url <url>', `management API base URL (env HOOKYARD_URL, default ${DEFAULT_URL})`)
    .option('--token <token>', 'management API token (env HOOKYARD_TOKEN)')
    .option('--json', "machine output: the server's answer as JSON on stdout, nothing else")
    .configureHelp({ showGlobalOptions: true })
    .exitOverride()
    // Commander's own errors (unknown command or option, missing argument) in our one-line form.
    .configureOutput({ outputError: (str, write) => write(`hookyard: ${oneLine(str.replace(/^error: /, ''))} (see --help)\n`) })
    .addHelpText(
      'after',
      '\nExit codes: 0 ok, 1 the server refused or failed, 2 bad usage or configuration, 3 the server could not be reached.' +
        "\nFlags win over HOOKYARD_URL and HOOKYARD_TOKEN. Run 'hookyard <command> --help' for a command's options.",
    );

  const opts = () => program.opts<GlobalOptions>();
  const ctx: CliContext = {
    client: (c) => {
      const o = opts();
      return new ApiClient({ url: o.url ?? process.env.HOOKYARD_URL ?? DEFAULT_URL, token: o.token ?? process.env.HOOKYARD_TOKEN, timeoutMs: c?.timeoutMs });
    },
    url: () => opts().url ?? process.env.HOOKYARD_URL ?? DEFAULT_URL,
    given: () => ({ url: opts().url, token: opts().token }),
    json: () => Boolean(opts().json),
    emit: (value, human) => (opts().json ? printJson(value) : human()),
  };

  serveCommand(program);
  settingsCommand(program, ctx);
  hooksCommand(program, ctx);
  runsCommand(program, ctx);
  interactionsCommand(program, ctx);
  toolsCommand(program, ctx);
  templatesCommand(program, ctx);
  approvalsCommand(program, ctx);
  statesCommand(program, ctx);
  // After every other command but completion: joins an `interactions` command registered before it.
  interactionAnswerCommands(program, ctx);
  sendCommand(program, ctx);
  callCommand(program, ctx);
  unroutedCommand(program, ctx);
  agentsCommand(program, ctx);
  auditCommand(program, ctx);
  completionCommand(program);
  return program;
}

/** Runs the CLI; exits with 0, 1 (refused), 2 (usage or configuration) or 3 (unreachable). */
export async function main(argv: string[]): Promise<void> {
  quietOnClosedPipe(process.stdout);
  quietOnClosedPipe(process.stderr);
  const program = buildProgram();
  try {
    await program.parseAsync(argv, { from: 'user' });
  } catch (err) {
    // Under --json a failure is also one JSON document on stdout ({"error": {kind, message}}), exit code unchanged.
    if (wantsJson(argv)) printErrorJson(err);
    // Exit at once: a failed `serve` may leave handles behind; stderr to a pipe or file is written synchronously.
    process.exit(exitCodeOf(err));
  }
}

/**
 * `hookyard hooks list | head`: once the reader is gone, a write fails with EPIPE.
 * That is the reader's choice, not our failure: exit at once, quietly (as a
 * process killed by SIGPIPE would), with no stack trace.
 */
function quietOnClosedPipe(stream: NodeJS.WriteStream): void {
  stream.on('error', (err: NodeJS.ErrnoException) => {
    if (err.code === 'EPIPE') process.exit(EXIT.ok);
    throw err;
  });
}

/** Reports an error on stderr (one line, then one indented line per detail) and returns its exit code. */
function exitCodeOf(err: unknown): number {
  if (err instanceof CommanderError) {
    // --help, --version and `help` exit 0; a group without its subcommand printed its help to stderr: usage.
    return err.exitCode === 0 ? EXIT.ok : EXIT.usage;
  }
  if (err instanceof CliError) {
    process.stderr.write(`hookyard: ${oneLine(err.message)}\n`);
    // A detail starting with spaces continues the one before (jq's program line and its caret): kept as is, so the caret stays under its column.
    for (const d of err.details) process.stderr.write(/^\s/.test(d) ? `    ${d.replace(/[\r\n]+/g, ' ').trimEnd()}\n` : `  - ${oneLine(d)}\n`);
    return err.exitCode;
  }
  if (err instanceof SettingsError) {
    process.stderr.write(`hookyard: bad setting ${oneLine(err.message)}\n`);
    return EXIT.usage;
  }
  process.stderr.write(`hookyard: ${oneLine(err instanceof Error ? err.message : String(err))}\n`);
  return EXIT.refused;
}
