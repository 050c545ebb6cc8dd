import type { Command, Option } from 'commander';
import { CliError, EXIT } from '../client';
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

/** Every command path of the tree with its subcommands and long options (global ones included). */
export function completionTable(program: Command): { nodes: Node[]; values: Map<string, string[]> } {
  const globals = program.options.map(longFlag).filter((f): f is string => Boolean(f));
  const nodes: Node[] = [];
  const values = new Map<string, string[]>();
  const walk = (cmd: Command, path: string) => {
    const subs = cmd.commands.map((c) => c.name()).filter((n) => n !== 'help');
    const flags = cmd.options.map(longFlag).filter((f): f is string => Boolean(f));
    nodes.push({ path, words: [...subs, ...new Set([...flags, ...globals, '--help'])] });
    for (const o of cmd.options) {
      const choices = (o as Option & { argChoices?: string[] }).argChoices;
      if (o.long && choices?.length) values.set(o.long, choices);
    }
    for (const c of cmd.commands) if (c.name() !== 'help') walk(c, path ? `${path} ${c.name()}` : c.name());
  };
  walk(program, '');
  return { nodes, values };
}

/** Single-quotes a word list for a shell `case` arm (names and flags never carry a quote). */
const q = (s: string) => `'${s}'`;

/**
 * A bash completion script: the command path typed so far selects the words
 * offered (subcommands, then options); an option with fixed values offers them.
 * zsh loads the same function through bashcompinit.
 */
export function bashCompletion(program: Command): string {
  const { nodes, values } = completionTable(program);
  const arms = nodes.map((n) => `    ${q(n.path)}) echo ${q(n.words.join(' '))} ;;`).join('\n');
  const valueArms = [...values].map(([flag, vs]) => `    ${q(flag)}) echo ${q(vs.join(' '))} ;;`).join('\n');
  return `# hookyard completion (bash). Load it with: source <(hookyard completion bash)
_hookyard_words() {
  case "$1" in
${arms}
  esac
}
_hookyard_values() {
  case "$1" in
${valueArms}
  esac
}
_hookyard() {
  local cur="\${COMP_WORDS[COMP_CWORD]}" prev="\${COMP_WORDS[COMP_CWORD-1]}" path="" next i w
  local vals
  vals="$(_hookyard_values "$prev")"
  if [[ -n "$vals" ]]; then
    COMPREPLY=( $(compgen -W "$vals" -- "$cur") )
    return 0
  fi
  for (( i=1; i<COMP_CWORD; i++ )); do
    w="\${COMP_WORDS[i]}"
    [[ "$w" == -* ]] && continue
    next="\${path:+$path }$w"
    [[ -n "$(_hookyard_words "$next")" ]] && path="$next"
  done
  COMPREPLY=( $(compgen -W "$(_hookyard_words "$path")" -- "$cur") )
  return 0
}
complete -F _hookyard hookyard
`;
}

/** The zsh script: the bash function through zsh's bashcompinit. */
export function zshCompletion(program: Command): string {
  return `#compdef hookyard
# hookyard completion (zsh). Load it with: source <(hookyard completion zsh)
autoload -U +X compinit && compinit
autoload -U +X bashcompinit && bashcompinit
${bashCompletion(program).split('\n').slice(1).join('\n')}`;
}

/** `hookyard completion bash|zsh`: prints the completion script for the shell. Needs no server. */
export function completionCommand(program: Command): void {
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
