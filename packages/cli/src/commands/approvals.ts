import type { Command } from 'commander';
import type { AnswerOf, approveInteraction, denyInteraction, getApprovalPolicy, getInteraction, listInteractions, putApprovalPolicy } from '@hookyard/api';
import { apiPath, readRecord } from '../client';
import { printRecord, printTable, say } from '../output';
import type { CliContext } from '../context';

/**
 * `hookyard approvals list|show` (the open approvals, each with its rule's
 * message: why a person is asked) over `GET /api/interactions`, and
 * `hookyard approvals policy show|set` over `GET/PUT /api/approval-policy`.
 */
export function approvalsCommand(program: Command, ctx: CliContext): void {
  const approvals = program.command('approvals').description("open approvals and the deployment's approval policy");

  approvals
    .command('list')
    .description("the open approvals, newest first (one page): tool, hook or agent, run, expiry and the rule's message")
    .option('--cursor <cursor>', 'the next_cursor of the previous page')
    .action(async (opts: { cursor?: string }) => {
      const q = new URLSearchParams({ kind: 'approval', status: 'open', ...(opts.cursor !== undefined ? { cursor: opts.cursor } : {}) });
      const res = await ctx.client().get<AnswerOf<typeof listInteractions>>(apiPath(['interactions'], q));
      ctx.emit(res, () => {
        printTable(res.interactions, ['id', 'tool', 'hook', 'run', 'rule', 'expires_at', 'message']);
        if (res.next_cursor) say(`more: hookyard approvals list --cursor ${res.next_cursor}`);
      });
    });

  approvals
    .command('show <id>')
    .description('one approval: its rule and message, tool, arguments hash, run, expiry, status and who answered')
    .action(async (id: string) => {
      const i = await ctx.client().get<AnswerOf<typeof getInteraction>>(apiPath(['interactions', id]));
      ctx.emit(i, () => printRecord(i));
    });

  const policy = approvals.command('policy').description('show or replace the approval rules');

  policy
    .command('show')
    .description('show the approval policy (version and rules, first match wins)')
    .action(async () => {
      const res = await ctx.client().get<AnswerOf<typeof getApprovalPolicy>>(apiPath(['approval-policy']));
      ctx.emit(res, () => {
        say(`approval policy version ${res.version}${res.updated_at ? ` (updated ${res.updated_at})` : ''}: ${res.rules.length} rule(s)`);
        if (res.rules.length)
          printTable(
            res.rules.map((r, i) => ({ n: i + 1, ...r, tools: r.tools.join(' ') })),
            ['n', 'name', 'tools', 'when', 'action', 'timeout_seconds'],
          );
      });
    });

  policy
    .command('set')
    .description('replace the approval rules (admin); with "version" in the body, only if that is still the kept version')
    .option('--params <json>', 'the policy as one JSON object, e.g. {"rules":[{"tools":["deploy"],"action":"approve"}]}')
    .option('--file <path>', 'read the policy from a JSON file (- for stdin)')
    .action(async (opts: { params?: string; file?: string }) => {
      const body = readRecord('approval policy', opts);
      const res = await ctx.client().put<AnswerOf<typeof putApprovalPolicy>>(apiPath(['approval-policy']), body);
      ctx.emit(res, () => say(`approval policy version ${res.version}: ${res.rules.length} rule(s)`));
    });
}

/**
 * `hookyard interactions approve|deny <id> [--reason]` over
 * `POST /api/interactions/{id}/approve|deny` (operator). Joins the
 * `interactions` command when another part of the CLI made it.
 */
export function interactionAnswerCommands(program: Command, ctx: CliContext): void {
  const interactions =
    program.commands.find((c) => c.name() === 'interactions') ?? program.command('interactions').description("parked runs' interactions: answer approvals");
  for (const verdict of ['approve', 'deny'] as const) {
    interactions
      .command(`${verdict} <id>`)
      .description(
        verdict === 'approve' ? 'approve an open approval: its run calls the tool once (operator)' : 'deny an open approval: its run ends denied (operator)',
      )
      .option('--reason <text>', "why (kept on the answer and in the run's result)")
      .action(async (id: string, opts: { reason?: string }) => {
        const res = await ctx
          .client()
          .post<AnswerOf<typeof approveInteraction | typeof denyInteraction>>(
            apiPath(['interactions', id, verdict]),
            opts.reason === undefined ? {} : { reason: opts.reason },
          );
        ctx.emit(res, () => say(`interaction ${res.interaction.id} ${res.interaction.status}; run ${res.interaction.run} woken`));
      });
  }
}
