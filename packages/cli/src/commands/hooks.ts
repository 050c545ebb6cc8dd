import type { Command } from 'commander';
import { CliError, EXIT, apiPath, parseJsonOption, readRecord } from '../client';
import { printRecord, printTable, say } from '../output';
import type { CliContext } from '../context';
import { verifierCommand } from './verifier';
import { triggerLinkCommand } from './trigger-links';
import { dedupeCommand } from './dedupe';
import type { AnswerOf, dryRunHook, getHook, listHooks, putHook, removeHook } from '@hookyard/api';

/**
 * `hookyard hooks ...` over `GET/POST /api/hooks` and `GET/DELETE /api/hooks/{name}`.
 * Answers typed from the routes' declarations (@hookyard/api).
 */
export function hooksCommand(program: Command, ctx: CliContext): void {
  const hooks = program.command('hooks').description('register, list, show and remove hooks; topic verifiers and dedupe keys');

  hooks
    .command('register')
    .description('register a hook from its whole record, or replace the hook of that name (operator)')
    .option('--params <json>', 'the hook record as one JSON object, e.g. {"name":"h1","topic":"t1","tool":"echo"}')
    .option('--file <path>', 'read the hook record from a JSON file (- for stdin)')
    .addHelpText(
      'after',
      `\nExample:\n  hookyard hooks register --params '{"name":"greet","topic":"demo","tool":"echo","condition":{"content":".action == \\"opened\\""}}'`,
    )
    .action(async (opts: { params?: string; file?: string }) => {
      const body = readRecord('hook record', opts);
      const res = await ctx.client().post<AnswerOf<typeof putHook>>(apiPath(['hooks']), body);
      ctx.emit(res, () => say(`${res.created ? 'registered' : 'replaced'} hook ${res.hook.name} on topic ${res.hook.topic} (tool ${res.hook.tool})`));
    });

  hooks
    .command('list')
    .description('list registered hooks')
    .option('--topic <topic>', 'only the hooks on one topic')
    .action(async (opts: { topic?: string }) => {
      const q = new URLSearchParams(opts.topic === undefined ? {} : { topic: opts.topic });
      const res = await ctx.client().get<AnswerOf<typeof listHooks>>(apiPath(['hooks'], q));
      ctx.emit(res, () => printTable(res.hooks, ['name', 'topic', 'tool', 'updated_at']));
    });

  hooks
    .command('show <name>')
    .description('show one hook record')
    .action(async (name: string) => {
      const hook = await ctx.client().get<AnswerOf<typeof getHook>>(apiPath(['hooks', name]));
      ctx.emit(hook, () => printRecord(hook));
    });

  hooks
    .command('remove <name>')
    .description('remove a hook (operator); its kept runs stay')
    .action(async (name: string) => {
      const res = await ctx.client().delete<AnswerOf<typeof removeHook>>(apiPath(['hooks', name]));
      ctx.emit(res, () => say(`removed hook ${res.name ?? name}`));
    });

  hooks
    .command('dry-run [name]')
    .description(
      'what a run of a hook over a payload would do: condition, door contract, kwargs, extras, allowlist, approval (operator; nothing kept or called)',
    )
    .option('--params <json>', 'a hook record to try instead of a registered hook (validated, not stored)')
    .option('--file <path>', 'read that hook record from a JSON file (- for stdin)')
    .option('--payload <json>', 'the event payload (default {})')
    .addHelpText(
      'after',
      `\nExamples:\n  hookyard hooks dry-run greet --payload '{"action":"opened"}'\n  hookyard hooks dry-run --file hook.json --payload '{"action":"closed"}'`,
    )
    .action(async (name: string | undefined, opts: { params?: string; file?: string; payload?: string }) => {
      const given = opts.params !== undefined || opts.file !== undefined;
      if ((name === undefined) === !given) throw new CliError('name a registered hook, or give its record with --params or --file (not both)', EXIT.usage);
      const hook = name ?? readRecord('hook record', opts);
      const payload = opts.payload === undefined ? {} : parseJsonOption('--payload', opts.payload);
      const res = await ctx.client().post<AnswerOf<typeof dryRunHook>>(apiPath(['hooks', 'dry-run']), { hook, payload });
      ctx.emit(res, () => {
        say(`hook ${res.hook}: ${res.outcome}`);
        printRecord(res);
      });
    });

  verifierCommand(hooks, ctx);
  triggerLinkCommand(hooks, ctx);
  dedupeCommand(hooks, ctx);
}
