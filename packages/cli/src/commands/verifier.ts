import type { Command } from 'commander';
import { CliError, EXIT, apiPath } from '../client';
import { printRecord, say } from '../output';
import type { CliContext } from '../context';
import type { AnswerOf, getVerifier, putVerifier, removeVerifier } from '@hookyard/api';

/** `--setting key=value`: numbers and true/false become JSON numbers and booleans, the rest stays text. */
export function parseSettings(pairs: readonly string[]): Record<string, unknown> {
  const settings: Record<string, unknown> = {};
  for (const kv of pairs) {
    const i = kv.indexOf('=');
    if (i <= 0) throw new CliError(`--setting ${JSON.stringify(kv)} is not key=value`, EXIT.usage);
    const raw = kv.slice(i + 1);
    settings[kv.slice(0, i)] = /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw === 'true' ? true : raw === 'false' ? false : raw;
  }
  return settings;
}

/**
 * `hookyard hooks verifier ...` over `GET/PUT/DELETE /api/hooks/topics/{topic}/verifier`.
 * Answers: set `{created, verifier}`, show the bare binding, remove `{removed, topic}`.
 */
export function verifierCommand(hooks: Command, ctx: CliContext): void {
  const verifier = hooks.command('verifier').description("set, show or remove a topic's webhook verifier");
  const path = (topic: string) => apiPath(['hooks', 'topics', topic, 'verifier']);

  verifier
    .command('set <topic>')
    .description('bind a verifier to a topic, or replace its binding (admin); secrets are references, never values')
    .requiredOption('--kind <kind>', 'shared_secret | hmac | github | stripe | slack | standard-webhooks')
    .option('--secret <ref...>', 'secret reference(s) env:NAME or file:/path; several while rotating')
    .option('--setting <key=value...>', 'settings of the kind, e.g. header=x-token tolerance_seconds=300 (numbers and true/false are typed)')
    .option('--nats <trust>', "trusted: the NATS door keeps this topic's messages (never verified); left out, it refuses them")
    .addHelpText('after', '\nExample:\n  hookyard hooks verifier set github-events --kind github --secret env:HOOKS_SECRET_GITHUB_WEBHOOK_SECRET')
    .action(async (topic: string, opts: { kind: string; secret?: string[]; setting?: string[]; nats?: string }) => {
      const body = {
        kind: opts.kind,
        ...(opts.secret ? { secrets: opts.secret } : {}),
        ...(opts.setting ? { settings: parseSettings(opts.setting) } : {}),
        ...(opts.nats !== undefined ? { nats: opts.nats } : {}),
      };
      const res = await ctx.client().put<AnswerOf<typeof putVerifier>>(path(topic), body);
      ctx.emit(res, () => say(`${res.created ? 'bound' : 'replaced'} verifier ${res.verifier.kind} on topic ${res.verifier.topic}`));
    });

  verifier
    .command('show <topic>')
    .description("show a topic's verifier binding (secret references, never secret values)")
    .action(async (topic: string) => {
      const binding = await ctx.client().get<AnswerOf<typeof getVerifier>>(path(topic));
      ctx.emit(binding, () => printRecord(binding));
    });

  verifier
    .command('remove <topic>')
    .description("remove a topic's verifier (admin): the topic's door is open again")
    .action(async (topic: string) => {
      const res = await ctx.client().delete<AnswerOf<typeof removeVerifier>>(path(topic));
      ctx.emit(res, () => say(`removed the verifier of topic ${res.topic ?? topic}; its door is open`));
    });
}
