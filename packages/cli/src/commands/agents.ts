import type { AgentIdentity } from '@hookyard/core';
import type { Command } from 'commander';
import type { AnswerOf, createAgent, getAgent, listAgents, rotateAgent, updateAgent } from '@hookyard/api';
import { CliError, EXIT, apiPath } from '../client';
import { printRecord, printTable, say } from '../output';
import type { CliContext } from '../context';

/** What create and rotate answer: the agent and its token, shown this once. */
type AgentWithToken = AnswerOf<typeof createAgent>;

/** An agent as the list and show answer it, with its usage of the last 24 hours. */
type Listed = AnswerOf<typeof getAgent>;

/** The usage columns of `agents list` and lines of `agents show` (empty when the server answers no usage). */
function usageCells(a: Listed): Record<string, unknown> {
  const u = a.usage;
  if (!u) return {};
  return { last_used_at: u.last_used_at ?? 'none kept', calls_24h: u.calls, denied_24h: u.denied, approvals_24h: u.approvals, failed_24h: u.failed };
}

/** The entries of `--allow a,b,c` (a usage error when none). */
function allowList(raw: string): string[] {
  const entries = raw
    .split(',')
    .map((e) => e.trim())
    .filter((e) => e !== '');
  if (entries.length === 0) throw new CliError('--allow needs at least one tool name (e.g. --allow echo,github__get_issue, or --allow "*")', EXIT.usage);
  return entries;
}

const IDENTITY_EXAMPLE = '--identity https://idp.example.com,subject=alice (or client_id=ci-runner)';

/**
 * One `--identity ISSUER[,subject=S][,client_id=C]`: the issuer URL as its
 * tokens' `iss`, then the `sub` and/or the `client_id` (`azp`) it must carry.
 * Only the form is checked here; the server says what an identity needs.
 */
function identity(raw: string): AgentIdentity {
  const [issuer = '', ...fields] = raw.split(',').map((p) => p.trim());
  const out: AgentIdentity = { issuer };
  for (const f of fields) {
    const eq = f.indexOf('=');
    const [key, value] = [f.slice(0, eq), f.slice(eq + 1)];
    if (eq < 1 || value === '' || (key !== 'subject' && key !== 'client_id'))
      throw new CliError(`--identity ${JSON.stringify(raw)}: ${JSON.stringify(f)} is not subject=S or client_id=C; e.g. ${IDENTITY_EXAMPLE}`, EXIT.usage);
    out[key] = value;
  }
  return out;
}

/** An agent's identities on one line: `issuer subject=… client_id=…`, separated by `; `. */
function identitiesCell(list: AgentIdentity[] | undefined): string {
  return (list ?? [])
    .map((i) =>
      [i.issuer, ...(i.subject !== undefined ? [`subject=${i.subject}`] : []), ...(i.client_id !== undefined ? [`client_id=${i.client_id}`] : [])].join(' '),
    )
    .join('; ');
}

/** The lines create and rotate print for people: the token once, and that it is shown only now. */
function sayToken(verb: string, res: AgentWithToken): void {
  say(`${verb} agent ${res.agent.name} (token ${res.agent.token_id}); its token is shown only now, keep it like a password:`);
  say(res.token);
}

/**
 * `hookyard agents create|list|show|update|revoke|rotate` over `/api/agents` (admin):
 * create (with the IdP identities that may act as the agent) and rotate
 * answer `{agent, token}` (the token shown this once),
 * list `{agents}` and show the agent with its usage of the last 24 hours,
 * update (PATCH) the agent changed, revoke nothing (204).
 */
export function agentsCommand(program: Command, ctx: CliContext): void {
  const agents = program.command('agents').description('agent principals: each with its own token and tool allowlist, for the agent door (admin)');
  const path = (name?: string, ...rest: string[]) => apiPath(name === undefined ? ['agents'] : ['agents', name, ...rest]);

  agents
    .command('create <name>')
    .description('make an agent (admin); its token is shown once')
    .requiredOption('--allow <tools>', 'the tools it may list and call, comma-separated: names, * or !name (narrowed by HOOKS_TOOLS_ALLOW)')
    .option('--description <text>', 'what the agent is for')
    .option(
      '--identity <issuer[,subject=S][,client_id=C]>',
      "who at the identity provider may act as it with an OAuth access token: the token's iss, and its sub and/or client_id; repeatable",
      (v: string, all: AgentIdentity[]) => [...all, identity(v)],
      [] as AgentIdentity[],
    )
    .addHelpText(
      'after',
      '\nExamples:\n  hookyard agents create ci-bot --allow echo,github__get_issue --description "the CI assistant"\n  hookyard agents create desk-agent --allow echo --identity https://idp.example.com,subject=alice',
    )
    .action(async (name: string, opts: { allow: string; description?: string; identity: AgentIdentity[] }) => {
      const body = {
        name,
        tools_allow: allowList(opts.allow),
        ...(opts.description !== undefined ? { description: opts.description } : {}),
        ...(opts.identity.length ? { identities: opts.identity } : {}),
      };
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
          res.agents.map((a) => ({
            ...a,
            ...usageCells(a),
            tools_allow: a.tools_allow.join(','),
            description: a.description ?? '',
            identities: identitiesCell(a.identities),
          })),
          ['name', 'tools_allow', 'token_id', 'last_used_at', 'calls_24h', 'denied_24h', 'approvals_24h', 'failed_24h', 'identities', 'description'],
        ),
      );
    });

  agents
    .command('show <name>')
    .description('one agent (never its token)')
    .action(async (name: string) => {
      const res = await ctx.client().get<AnswerOf<typeof getAgent>>(path(name));
      ctx.emit(res, () => {
        const { usage: _usage, ...agent } = res;
        printRecord({ ...agent, identities: identitiesCell(res.identities), ...usageCells(res) });
      });
    });

  agents
    .command('update <name>')
    .description("change an agent's description or tool allowlist (admin); its token stays, its open MCP sessions are told to list again")
    .option('--tools-allow <tools>', 'replace the allowlist whole: tool names, * or !name, comma-separated (as create --allow)')
    .option('--allow <tools>', 'the same as --tools-allow')
    .option('--description <text>', 'replace the description ("" clears it)')
    .addHelpText(
      'after',
      '\nExamples:\n  hookyard agents update ci-bot --tools-allow "echo,github__get_issue"\n  hookyard agents update ci-bot --description ""',
    )
    .action(async (name: string, opts: { toolsAllow?: string; allow?: string; description?: string }) => {
      if (opts.toolsAllow !== undefined && opts.allow !== undefined) throw new CliError('give --tools-allow or --allow, not both', EXIT.usage);
      const allow = opts.toolsAllow ?? opts.allow;
      if (allow === undefined && opts.description === undefined)
        throw new CliError('nothing to change: give --tools-allow and/or --description (e.g. hookyard agents update ci-bot --tools-allow echo)', EXIT.usage);
      const body = {
        ...(allow !== undefined ? { tools_allow: allowList(allow) } : {}),
        ...(opts.description !== undefined ? { description: opts.description === '' ? null : opts.description } : {}),
      };
      const res = await ctx.client().patch<AnswerOf<typeof updateAgent>>(path(name), body);
      ctx.emit(res, () =>
        say(
          `updated agent ${res.name}: tools_allow ${res.tools_allow.join(',')}; description ${res.description === null ? '(none)' : JSON.stringify(res.description)}`,
        ),
      );
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
