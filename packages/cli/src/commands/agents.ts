import type { Command } from 'commander';
import type { AnswerOf, createAgent, getAgent, listAgents, rotateAgent } from '@hookyard/api';
import { CliError, EXIT, apiPath } from '../client';
import { printRecord, printTable, say } from '../output';
import type { CliContext } from '../context';

/** What create and rotate answer: the agent and its token, shown this once. */
type AgentWithToken = AnswerOf<typeof createAgent>;

/** The entries of `--allow a,b,c` (a usage error when none). */
function allowList(raw: string): string[] {
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (entries.length === 0) throw new CliError('--allow needs at least one tool name (e.g. --allow echo,github__get_issue, or --allow "*")', EXIT.usage);
  return entries;
}

/** The lines create and rotate print for people: the token once, and that it is shown only now. */
function sayToken(verb: string, res: AgentWithToken): void {
  say(`${verb} agent ${res.agent.name} (token ${res.agent.token_id}); its token is shown only now, keep it like a password:`);
  say(res.token);
}

/**
 * `hookyard agents create|list|show|revoke|rotate` over `/api/agents` (admin):
 * create and rotate answer `{agent, token}` (the token shown this once),
 * list `{agents}`, show the agent, revoke nothing (204).
 */
export function agentsCommand(program: Command, ctx: CliContext): void {
  const agents = program.command('agents').description('agent principals: each with its own token and tool allowlist, for the agent door (admin)');
  const path = (name?: string, ...rest: string[]) => apiPath(name === undefined ? ['agents'] : ['agents', name, ...rest]);

  agents
    .command('create <name>')
    .description('make an agent (admin); its token is shown once')
    .requiredOption('--allow <tools>', 'the tools it may list and call, comma-separated: names, * or !name (narrowed by HOOKS_TOOLS_ALLOW)')
    .option('--description <text>', 'what the agent is for')
    .addHelpText('after', '\nExample:\n  hookyard agents create ci-bot --allow echo,github__get_issue --description "the CI assistant"')
    .action(async (name: string, opts: { allow: string; description?: string }) => {
      const body = { name, tools_allow: allowList(opts.allow), ...(opts.description !== undefined ? { description: opts.description } : {}) };
      const res = await ctx.client().post<AgentWithToken>(path(), body);
      ctx.emit(res, () => sayToken('made', res));
    });

  agents
    .command('list')
    .description('list the agents (never their tokens)')
    .action(async () => {
      const res = await ctx.client().get<AnswerOf<typeof listAgents>>(path());
      ctx.emit(res, () =>
        printTable(
          res.agents.map((a) => ({ ...a, tools_allow: a.tools_allow.join(','), description: a.description ?? '' })),
          ['name', 'tools_allow', 'token_id', 'description', 'updated_at'],
        ),
      );
    });

  agents
    .command('show <name>')
    .description('one agent (never its token)')
    .action(async (name: string) => {
      const res = await ctx.client().get<AnswerOf<typeof getAgent>>(path(name));
      ctx.emit(res, () => printRecord({ ...res }));
    });

  agents
    .command('revoke <name>')
    .description('revoke an agent at once: its token is refused from its next request, its MCP sessions close')
    .action(async (name: string) => {
      await ctx.client().delete<undefined>(path(name));
      ctx.emit({ revoked: true, name }, () => say(`revoked agent ${name}: its token is refused from now on`));
    });

  agents
    .command('rotate <name>')
    .description('give an agent a new token (shown once); the old one is refused at once')
    .action(async (name: string) => {
      const res = await ctx.client().post<AnswerOf<typeof rotateAgent>>(path(name, 'rotate'));
      ctx.emit(res, () => sayToken('rotated', res));
    });
}
