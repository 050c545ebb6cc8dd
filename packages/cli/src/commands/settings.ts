import type { Command } from 'commander';
import { SETTINGS_REGISTRY, settingsDocs } from '@hookyard/core';
import { say } from '../output';
import type { CliContext } from '../context';

/** One documented setting, from the registry: its variable, the doc line, its default and whether a reload applies it. */
export interface SettingDoc {
  variable: string;
  doc: string;
  default: string;
  live: boolean;
}

export function settingDocs(): SettingDoc[] {
  const lines = settingsDocs();
  return Object.entries(SETTINGS_REGISTRY).map(([variable, s], i) => ({
    variable,
    doc: lines[i]!,
    default: s.default,
    live: s.live,
  }));
}

/** The settings table of the manual (docs/settings.md), one row per setting of the registry. */
export function settingsMarkdown(): string[] {
  const cell = (s: string) => s.replace(/\|/g, '\\|');
  const rows = Object.entries(SETTINGS_REGISTRY).map(
    ([variable, s]) => `| \`${variable}\` | ${cell(s.default)} | ${s.live ? 'live' : 'restart'} | ${cell(s.doc)} |`,
  );
  return ['| variable | default | applies | what |', '|---|---|---|---|', ...rows];
}

/** `hookyard settings`: every setting `serve` reads, with its default and whether a reload applies it. Needs no server. */
export function settingsCommand(program: Command, ctx: CliContext): void {
  program
    .command('settings')
    .description('list every setting of `hookyard serve` (environment or HOOKS_CONFIG_FILE) with its default and whether a reload applies it')
    .option('--markdown', 'print the settings table of the manual (docs/settings.md)')
    .action((opts: { markdown?: boolean }) => {
      const docs = settingDocs();
      if (opts.markdown) {
        for (const line of settingsMarkdown()) say(line);
        return;
      }
      ctx.emit({ settings: docs }, () => {
        for (const d of docs) say(d.doc);
      });
    });
}
