import { readFileSync } from 'node:fs';
import type { Command } from 'commander';
import { CliError, EXIT, parseJsonOption } from '../client';
import { printJson, printRecord, printTable } from '../output';
import type { CliContext } from '../context';

function readParams(opts: { params?: string; file?: string }): unknown {
  if (opts.params && opts.file) throw new CliError('give either --params or --file, not both', EXIT.usage);
  if (opts.file) {
    let raw: string;
    try {
      raw = opts.file === '-' ? readFileSync(0, 'utf8') : readFileSync(opts.file, 'utf8');
    } catch (err) {
      throw new CliError(`cannot read --file ${opts.file}: ${(err as Error).message}`, EXIT.usage);
    }
    return parseJsonOption('--file', raw);
  }
  if (opts.params) return parseJsonOption('--params', opts.params);
  throw new CliError('the hook record is required: --params JSON or --file PATH (- for stdin)', EXIT.usage);
}

export function hooksCommand(program: Command, ctx: CliContext): void {
  const hooks = program.command('hooks').description('register, list, show and remove hooks');

  hooks
    .command('register')
    .description('register (or replace) a hook from its whole record')
    .option('--params <json>', 'the hook record as one JSON object, e.g. {"name":"h1","topic":"t1","tool":"echo"}')
    .option('--file <path>', 'read the hook record from a file (- for stdin)')
    .action(async (opts: { params?: string; file?: string }) => {
      const body = readParams(opts);
      const res = await ctx.client().call<{ created: boolean; hook: Record<string, unknown> }>('POST', 'api/hooks', body);
      if (ctx.json()) return printJson(res);
      process.stdout.write(`${res.created ? 'registered' : 'replaced'} hook ${String(res.hook?.name)} on topic ${String(res.hook?.topic)}\n`);
    });

  hooks
    .command('list')
    .description('list registered hooks')
    .action(async () => {
      const res = await ctx.client().call<{ hooks: Record<string, unknown>[] }>('GET', 'api/hooks');
      if (ctx.json()) return printJson(res);
      printTable(res.hooks, ['name', 'topic', 'tool', 'updated_at']);
    });

  hooks
    .command('show <name>')
    .description('show one hook')
    .action(async (name: string) => {
      const res = await ctx.client().call<Record<string, unknown>>('GET', `api/hooks/${encodeURIComponent(name)}`);
      if (ctx.json()) return printJson(res);
      printRecord((res.hook as Record<string, unknown>) ?? res);
    });

  hooks
    .command('remove <name>')
    .description('remove a hook (its kept runs stay)')
    .action(async (name: string) => {
      const res = await ctx.client().call('DELETE', `api/hooks/${encodeURIComponent(name)}`);
      if (ctx.json()) return printJson(res);
      process.stdout.write(`removed hook ${name}\n`);
    });

  const verifier = hooks.command('verifier').description("set, show or remove a topic's webhook verifier");
  verifier
    .command('set <topic>')
    .description('bind a verifier to a topic (admin); secrets are references: env:NAME or file:/path')
    .requiredOption('--kind <kind>', 'shared_secret | hmac | github | stripe | slack | standard-webhooks')
    .option('--secret <ref...>', 'secret reference(s), several during rotation', [])
    .option('--setting <key=value...>', 'kind settings, e.g. header=X-Token tolerance_seconds=300', [])
    .action(async (topic: string, opts: { kind: string; secret: string[]; setting: string[] }) => {
      const settings: Record<string, unknown> = {};
      for (const kv of opts.setting) {
        const i = kv.indexOf('=');
        if (i <= 0) throw new CliError(`--setting ${JSON.stringify(kv)} is not key=value`, EXIT.usage);
        const raw = kv.slice(i + 1);
        settings[kv.slice(0, i)] = /^-?\d+(\.\d+)?$/.test(raw) ? Number(raw) : raw === 'true' ? true : raw === 'false' ? false : raw;
      }
      const res = await ctx
        .client()
        .call('PUT', `api/hooks/topics/${encodeURIComponent(topic)}/verifier`, { kind: opts.kind, secrets: opts.secret, settings });
      if (ctx.json()) return printJson(res);
      process.stdout.write(`verifier ${opts.kind} bound to topic ${topic}\n`);
    });
  verifier
    .command('show <topic>')
    .description("show a topic's verifier binding (references, never secret values)")
    .action(async (topic: string) => {
      const res = await ctx.client().call<Record<string, unknown>>('GET', `api/hooks/topics/${encodeURIComponent(topic)}/verifier`);
      if (ctx.json()) return printJson(res);
      printRecord((res.verifier as Record<string, unknown>) ?? res);
    });
  verifier
    .command('remove <topic>')
    .description("remove a topic's verifier (admin): the topic's door is open again")
    .action(async (topic: string) => {
      const res = await ctx.client().call('DELETE', `api/hooks/topics/${encodeURIComponent(topic)}/verifier`);
      if (ctx.json()) return printJson(res);
      process.stdout.write(`verifier removed from topic ${topic}\n`);
    });
}
