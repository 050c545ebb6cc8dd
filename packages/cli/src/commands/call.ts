import { randomUUID } from 'node:crypto';
import type { Command } from 'commander';
import type { AnswerOf, getCall } from '@hookyard/api';
import { CliError, EXIT, apiPath, parseJsonOption } from '../client';
import type { CliContext } from '../context';
import { printJson, say } from '../output';

/** Exit codes of `hookyard call` besides the common ones (0 succeeded, 1 refused, 2 usage, 3 unreachable). */
export const CALL_EXIT = { denied: 4, waiting: 5, failed: 6 } as const;

/** The longest wait the server may apply (HOOKS_AGENT_WAIT_SECONDS is at most 300). */
const MAX_SERVER_WAIT_S = 300;
/** Time past the wait for the answer itself to come back. */
const ANSWER_MARGIN_MS = 30_000;

interface CallOptions {
  args: string;
  wait?: string;
  key?: string;
}

/** What the server answers to Hookyard's body: the call's view (see POST /api/calls). */
type CallView = AnswerOf<typeof getCall>;

/**
 * `hookyard call TOOL --args JSON`: calls a tool as an agent (the token must
 * be an agent token) through `POST /api/calls`, and prints its result. The
 * call is kept as a run first; a call that still waits (an approval, a slow
 * tool) prints how to repeat it with the same key to get its outcome.
 */
export function callCommand(program: Command, ctx: CliContext): void {
  program
    .command('call <tool>')
    .description('call a tool as an agent (an agent token: --token or HOOKYARD_TOKEN) and print its result')
    .option('--args <json>', "the tool's arguments, a JSON object", '{}')
    .option('--wait <seconds>', "wait at most this long for the outcome (default and most: the server's HOOKS_AGENT_WAIT_SECONDS)")
    .option('--key <key>', 'the idempotency key: the same key again answers the same call without calling the tool twice (default: a new one)')
    .addHelpText(
      'after',
      `\nExamples:\n  hookyard call echo --args '{"text":"hi"}'\n  hookyard call deploy --args '{"env":"prod"}' --wait 0 --key deploy-42\n` +
        `\nExit codes: 0 succeeded (the result on stdout), ${CALL_EXIT.denied} denied (the sentence on stderr), ` +
        `${CALL_EXIT.waiting} still waiting or parked on an approval (how to repeat it on stderr), ` +
        `${CALL_EXIT.failed} failed or cancelled, 1 refused (e.g. the tool is not available to this agent), 2 bad usage, 3 not reached.`,
    )
    .action(async (tool: string, opts: CallOptions) => {
      const args = parseJsonOption('--args', opts.args);
      if (args === null || typeof args !== 'object' || Array.isArray(args))
        throw new CliError('--args must be a JSON object, e.g. \'{"text":"hi"}\'', EXIT.usage);
      const wait = opts.wait === undefined ? undefined : waitSeconds(opts.wait);
      const key = opts.key ?? `cli-${randomUUID()}`;
      const body = { tool, arguments: args, idempotency_key: key, ...(wait === undefined ? {} : { wait_seconds: wait }) };
      const client = ctx.client({ timeoutMs: (wait ?? MAX_SERVER_WAIT_S) * 1000 + ANSWER_MARGIN_MS });
      const view = await client.post<CallView>(apiPath(['calls']), body);
      process.exitCode = exitCodeOf(view);
      if (ctx.json()) return printJson(view);
      if (view.status === 'succeeded') return say(typeof view.result === 'string' ? view.result : JSON.stringify(view.result ?? null, null, 2));
      process.stderr.write(`hookyard: call ${view.id} ${view.status}: ${view.sentence}\n`);
      if (!view.done) {
        const connection = connectionWords(ctx.given(), process.env);
        process.stderr.write(
          `hookyard: repeat it for the outcome: hookyard call ${shellWord(tool)} --args ${shellWord(JSON.stringify(args))} --key ${shellWord(key)}${connection}\n`,
        );
      }
    });
}

/**
 * The connection flags of the repeat hint, as the call was given them, so the
 * repeat reaches the same server as the same agent: `--url` as given; a
 * `--token` never by its value (it is a secret, and stderr ends up in logs)
 * but as the exported variable that holds it (`--token "$AGENT_TOKEN"`,
 * HOOKYARD_TOKEN first), or a `<your agent token>` placeholder when no
 * variable does. Flags not given are left off: the environment answers again.
 */
export function connectionWords(given: { url?: string; token?: string }, env: NodeJS.ProcessEnv): string {
  const words: string[] = [];
  if (given.url !== undefined) words.push('--url', shellWord(given.url));
  if (given.token !== undefined) {
    const names = Object.keys(env)
      .filter((n) => /^[A-Za-z_][A-Za-z0-9_]*$/.test(n) && given.token !== '' && env[n] === given.token)
      .sort((a, b) => (a === 'HOOKYARD_TOKEN' ? -1 : b === 'HOOKYARD_TOKEN' ? 1 : a < b ? -1 : a > b ? 1 : 0));
    words.push('--token', names.length > 0 ? `"$${names[0]}"` : "'<your agent token>'");
  }
  return words.map((w) => ` ${w}`).join('');
}

/** The exit code a call's view ends the command with. */
export function exitCodeOf(view: Pick<CallView, 'status' | 'done'>): number {
  if (!view.done) return CALL_EXIT.waiting;
  if (view.status === 'succeeded' || view.status === 'skipped') return EXIT.ok;
  if (view.status === 'denied') return CALL_EXIT.denied;
  return CALL_EXIT.failed;
}

function waitSeconds(raw: string): number {
  const n = Number(raw);
  if (raw.trim() === '' || !Number.isFinite(n) || n < 0 || n > MAX_SERVER_WAIT_S) {
    throw new CliError(`--wait must be a number of seconds from 0 to ${MAX_SERVER_WAIT_S}, got ${JSON.stringify(raw)}`, EXIT.usage);
  }
  return n;
}

/** A word a POSIX shell reads back as it is (single-quoted when it needs to be). */
function shellWord(s: string): string {
  return /^[A-Za-z0-9_.:/@%+=-]+$/.test(s) ? s : `'${s.replace(/'/g, `'\\''`)}'`;
}
