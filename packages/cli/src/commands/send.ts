import { readFileSync } from 'node:fs';
import { Option, type Command } from 'commander';
import { CliError, EXIT, oneLine } from '../client';
import type { CliContext } from '../context';
import { say } from '../output';
import { CHOSEN_DELIVERY_ID, SIGN_KINDS, readSecret, signDelivery, type SignKind } from './sign';

interface SendOptions {
  data?: string;
  file?: string;
  contentType?: string;
  sign?: SignKind;
  secret?: string;
  deliveryId?: string;
  header?: string[];
}

/** How long the door may take to answer before the CLI gives up (exit 3). */
const SEND_TIMEOUT_MS = 30_000;

/** The body's bytes, exactly as given: `--data` text or `--file` bytes (`-` is stdin). */
function readBody(opts: SendOptions): Buffer {
  if (opts.data !== undefined && opts.file !== undefined) throw new CliError('give either --data or --file, not both', EXIT.usage);
  if (opts.file !== undefined) {
    try {
      return readFileSync(opts.file === '-' ? 0 : opts.file);
    } catch (err) {
      throw new CliError(`cannot read --file ${opts.file}: ${(err as Error).message}`, EXIT.usage);
    }
  }
  if (opts.data === undefined) throw new CliError('the event is required: --data JSON or --file PATH (- for stdin)', EXIT.usage);
  // The default content type is JSON: a typo would be kept as something else, so it is caught here.
  if (opts.contentType === undefined) {
    try {
      JSON.parse(opts.data);
    } catch (err) {
      throw new CliError(`--data is not valid JSON: ${(err as Error).message} (give --content-type for another kind of body)`, EXIT.usage);
    }
  }
  return Buffer.from(opts.data, 'utf8');
}

function extraHeaders(raw: readonly string[] | undefined): Record<string, string> {
  const out: Record<string, string> = {};
  for (const h of raw ?? []) {
    const i = h.indexOf(':');
    if (i < 1) throw new CliError(`--header must be Name: value, got ${JSON.stringify(h)}`, EXIT.usage);
    out[h.slice(0, i).trim()] = h.slice(i + 1).trim();
  }
  return out;
}

/**
 * `hookyard send <topic>`: delivers an event to the public door
 * (`POST /universal_webhook/<topic>`) the way a sender would, signed as that
 * sender signs (signature, timestamp, delivery id) with `--sign` — for trying a
 * verifier and a hook end to end. Needs no token: the door is public.
 */
export function sendCommand(program: Command, ctx: CliContext): void {
  program
    .command('send <topic>')
    .description('deliver an event to the public door, optionally signed the way a sender signs it (no token needed)')
    .option('--data <json>', 'the event body, sent byte for byte (checked to be JSON unless --content-type is given)')
    .option('--file <path>', 'read the event body from a file (- for stdin)')
    .option('--content-type <type>', 'Content-Type of the body (default application/json)')
    .addOption(new Option('--sign <sender>', 'sign as this sender signs').choices([...SIGN_KINDS]))
    .option('--secret <ref>', 'the signing secret: env:NAME or file:/path (never a literal)')
    .option('--delivery-id <id>', 'the delivery id to send (github, standard-webhooks; default a fresh one: sending it again is a duplicate)')
    .option('--header <name:value...>', 'extra request headers')
    .addHelpText(
      'after',
      '\nExamples:\n  hookyard send demo --data \'{"action":"opened","sender":"ada"}\'\n' +
        '  hookyard send github-push --file push.json --sign github --secret env:HOOKS_SECRET_GITHUB\n' +
        '\nExit codes: 0 accepted or duplicate, 1 the door refused (its status and answer on stderr), 2 bad usage, 3 not reached.',
    )
    .action(async (topic: string, opts: SendOptions) => {
      if (opts.sign !== undefined && opts.secret === undefined) throw new CliError(`--sign ${opts.sign} needs --secret env:NAME or file:/path`, EXIT.usage);
      if (opts.sign === undefined && opts.secret !== undefined) throw new CliError(`--secret needs --sign (${SIGN_KINDS.join(', ')})`, EXIT.usage);
      if (opts.deliveryId !== undefined && !(opts.sign && CHOSEN_DELIVERY_ID.has(opts.sign))) {
        throw new CliError(
          `--delivery-id goes with --sign github or standard-webhooks (stripe's delivery id is the event's "id", slack's is derived from its signature)`,
          EXIT.usage,
        );
      }
      const body = readBody(opts);
      const signed = opts.sign ? signDelivery(opts.sign, readSecret(opts.secret!), body, Date.now(), opts.deliveryId) : null;
      const base = ctx.url();
      let target: URL;
      try {
        target = new URL(`universal_webhook/${encodeURIComponent(topic)}`, base.endsWith('/') ? base : `${base}/`);
      } catch {
        throw new CliError(`--url ${JSON.stringify(base)} is not a URL`, EXIT.usage);
      }
      let res: Response;
      let text: string;
      try {
        res = await fetch(target, {
          method: 'POST',
          headers: { 'content-type': opts.contentType ?? 'application/json', ...signed?.headers, ...extraHeaders(opts.header) },
          body,
          signal: AbortSignal.timeout(SEND_TIMEOUT_MS),
        });
        text = await res.text();
      } catch (err) {
        const e = err as { cause?: { code?: string }; message?: string };
        throw new CliError(
          `cannot reach ${base} (${e.cause?.code ?? e.message ?? String(err)}); is 'hookyard serve' running there? (set --url or HOOKYARD_URL)`,
          EXIT.unreachable,
        );
      }
      let answer: Record<string, unknown> | undefined;
      try {
        answer = JSON.parse(text) as Record<string, unknown>;
      } catch {
        answer = undefined;
      }
      if (!res.ok || answer === undefined) {
        throw new CliError(`the door answered ${res.status}: ${oneLine(text).slice(0, 300) || '(empty body)'}`, EXIT.refused);
      }
      const out = signed ? { ...answer, delivery_id: signed.deliveryId } : answer;
      // No hook on the topic (often a typo): said on stderr, also under --json, so it is never missed.
      if (answer.status === 'accepted' && answer.runs === 0) {
        const why = typeof answer.message === 'string' ? answer.message : `no hook is registered on topic '${topic}'`;
        process.stderr.write(`hookyard: warning: ${why} (see: hookyard unrouted list)\n`);
      }
      ctx.emit(out, () => {
        if (answer.status === 'duplicate') return say(`duplicate: delivery ${signed?.deliveryId ?? ''} was seen before; nothing kept`.replace('  ', ' '));
        const ids = Array.isArray(answer.run_ids) ? (answer.run_ids as string[]) : [];
        say(
          `accepted on ${topic}: ${String(answer.runs)} run${answer.runs === 1 ? '' : 's'}${ids.length ? ` (${ids.join(', ')})` : ''}${signed?.deliveryId ? `, delivery ${signed.deliveryId}` : ''}`,
        );
      });
    });
}
