import type { Command, Option } from 'commander';
import { ERROR_KINDS, INTERACTION_STATUSES, RUN_STATUSES } from '@hookyard/core';
import { ApiClient, CliError, DEFAULT_URL, EXIT, apiPath } from '../client';
import { say } from '../output';

/** The shells `hookyard completion` writes a script for. */
export const COMPLETION_SHELLS = ['bash', 'zsh'] as const;

/** One command path (`""`, `"runs"`, `"hooks verifier"`) with the words that may follow it. */
interface Node {
  path: string;
  words: string[];
}

function longFlag(o: Option): string | undefined {
  return o.long ?? undefined;
}

/** Commands the completion leaves out: `help` and the hidden helper it calls. */
const listed = (c: Command) => c.name() !== 'help' && c.name() !== COMPLETE_COMMAND;

/** The helper command the completion script calls for values only the server knows. */
export const COMPLETE_COMMAND = '__complete';

/** Values only the server knows, by what `hookyard __complete <what>` fetches. */
export const REMOTE_VALUES = ['hooks', 'runs'] as const;
type Remote = (typeof REMOTE_VALUES)[number];

/** Which server-known values a command's argument takes (`runs show <id>`: run ids). */
const ARGUMENT_VALUES: Record<string, Remote> = {
  'runs show': 'runs',
  'runs retry': 'runs',
  'runs discard': 'runs',
  'runs replay': 'runs',
  'hooks show': 'hooks',
  'hooks remove': 'hooks',
};

/** A `--status` option's values: an interaction's statuses under `interactions`, a run's elsewhere. */
const statusesOf = (path: string): readonly string[] => (path.startsWith('interactions') ? INTERACTION_STATUSES : RUN_STATUSES);

/**
 * Every command path of the tree with its subcommands and long options (global
 * ones included), and the values an option takes, keyed `<path>|<flag>`: fixed
 * choices, statuses, or `@hooks` for the registered hooks (fetched when completing).
 */
export function completionTable(program: Command): { nodes: Node[]; values: Map<string, string[]> } {
  const globals = program.options.map(longFlag).filter((f): f is string => Boolean(f));
  const nodes: Node[] = [];
  const values = new Map<string, string[]>();
  const walk = (cmd: Command, path: string) => {
    const subs = cmd.commands.filter(listed).map((c) => c.name());
    const flags = cmd.options.map(longFlag).filter((f): f is string => Boolean(f));
    nodes.push({ path, words: [...subs, ...new Set([...flags, ...globals, '--help'])] });
    for (const o of cmd.options) {
      const choices = (o as Option & { argChoices?: string[] }).argChoices;
      if (!o.long) continue;
      if (choices?.length) values.set(`${path}|${o.long}`, choices);
      else if (o.long === '--status') values.set(`${path}|${o.long}`, [...statusesOf(path)]);
      else if (o.long === '--hook') values.set(`${path}|${o.long}`, ['@hooks']);
      else if (o.long === '--kind' && path.startsWith('runs')) values.set(`${path}|${o.long}`, [...ERROR_KINDS]);
    }
    for (const c of cmd.commands) if (listed(c)) walk(c, path ? `${path} ${c.name()}` : c.name());
  };
  walk(program, '');
  return { nodes, values };
}

/** Single-quotes a word list for a shell `case` arm (names and flags never carry a quote). */
const q = (s: string) => `'${s}'`;

/**
 * A bash completion script: the command path typed so far selects the words
 * offered (subcommands, then options); an option with fixed values offers
 * them; hook names (`--hook`, `hooks show`) and run ids (`runs show`) come
 * from the server (`hookyard __complete hooks|runs`: HOOKYARD_URL and
 * HOOKYARD_TOKEN, a short timeout, nothing on failure). zsh loads the same
 * function through bashcompinit.
 */
export function bashCompletion(program: Command): string {
  const { nodes, values } = completionTable(program);
  const arms = nodes.map((n) => `    ${q(n.path)}) echo ${q(n.words.join(' '))} ;;`).join('\n');
  const valueArms = [...values]
    // '=' first: the option takes a value, so only values are offered (none when the server is out of reach).
    .map(([key, vs]) => (vs[0] === '@hooks' ? `    ${q(key)}) echo =; _hookyard_remote hooks ;;` : `    ${q(key)}) echo ${q(['=', ...vs].join(' '))} ;;`))
    .join('\n');
  const argArms = Object.entries(ARGUMENT_VALUES)
    .map(([path, what]) => `    ${q(path)}) _hookyard_remote ${what} ;;`)
    .join('\n');
  return `# hookyard completion (bash). Load it with: source <(hookyard completion bash)
_hookyard_words() {
  case "$1" in
${arms}
  esac
}
_hookyard_remote() {
  command hookyard ${COMPLETE_COMMAND} "$1" 2>/dev/null
}
_hookyard_values() {
  case "$1" in
${valueArms}
  esac
}
_hookyard_arguments() {
  case "$1" in
${argArms}
  esac
}
_hookyard() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" path="" next i w
  local vals
  for (( i=1; i<COMP_CWORD; i++ )); do
    w="\${COMP_WORDS[i]}"
    [[ "$w" == -* ]] && continue
    next="\${path:+$path }$w"
    [[ -n "$(_hookyard_words "$next")" ]] && path="$next"
  done
  if [[ "$prev" == --* ]]; then
    vals="$(_hookyard_values "$path|$prev")"
    if [[ -n "$vals" ]]; then
      COMPREPLY=( $(compgen -W "\${vals#=}" -- "$cur") )
      return 0
    fi
  fi
  vals="$(_hookyard_words "$path")"
  [[ "$cur" != -* && "$prev" == "\${path##* }" ]] && vals="$(_hookyard_arguments "$path") $vals"
  COMPREPLY=( $(compgen -W "$vals" -- "$cur") )
  return 0
}
complete -F _hookyard hookyard
`;
}

/** How long `hookyard __complete` waits for the server: a completion must not hang the shell. */
const COMPLETE_TIMEOUT_MS = 1500;

/**
 * `hookyard __complete hooks|runs` (hidden): the registered hook names or the
 * newest run ids, one a line, for the completion script. Silent on any
 * failure (no server, no token, a refusal): a completion offers nothing then.
 */
function completeValuesCommand(program: Command): void {
  program
    .command(`${COMPLETE_COMMAND} <what>`, { hidden: true })
    .description('values for the shell completion (hook names, run ids) from the server')
    .action(async (what: string) => {
      try {
        const o = program.opts<{ url?: string; token?: string }>();
        const client = new ApiClient({
          url: o.url ?? process.env.HOOKYARD_URL ?? DEFAULT_URL,
          token: o.token ?? process.env.HOOKYARD_TOKEN,
          timeoutMs: COMPLETE_TIMEOUT_MS,
        });
        if (what === 'hooks') {
          const page = await client.get<{ hooks: { name: string }[] }>(apiPath(['hooks']));
          for (const h of page.hooks) say(h.name);
        } else if (what === 'runs') {
          const page = await client.get<{ runs: { id: string }[] }>(apiPath(['hook-runs'], new URLSearchParams({ limit: '50' })));
          for (const r of page.runs) say(r.id);
        }
      } catch {
        /* nothing to offer */
      }
    });
}

/** The zsh script: the bash function through zsh's bashcompinit. */
export function zshCompletion(program: Command): string {
  return `#compdef hookyard
# hookyard completion (zsh). Load it with: source <(hookyard completion zsh)
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bashCompletion(program).split('\n').slice(1).join('\n')}`;
}

/** `hookyard completion bash|zsh`: prints the completion script for the shell (needs no server); and the hidden `__complete` it calls. */
export function completionCommand(program: Command): void {
  completeValuesCommand(program);
  program
    .command('completion <shell>')
    .description(`print a shell completion script (${COMPLETION_SHELLS.join(' or ')})`)
    .addHelpText(
      'after',
      '\nExamples:\n  source <(hookyard completion bash)          # in ~/.bashrc\n  source <(hookyard completion zsh)           # in ~/.zshrc',
    )
    .action((shell: string) => {
      if (shell === 'bash') return say(bashCompletion(program).trimEnd());
      if (shell === 'zsh') return say(zshCompletion(program).trimEnd());
      throw new CliError(`completion: shell must be one of ${COMPLETION_SHELLS.join(', ')}, got ${JSON.stringify(shell)}`, EXIT.usage);
    });
}
