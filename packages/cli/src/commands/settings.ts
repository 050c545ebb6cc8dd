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

/** `hookyard settings`: every environment variable `serve` reads, with its default. Needs no server. */
export function settingsCommand(program: Command, ctx: CliContext): void {
  program
    .command('settings')
    .description('list every setting of `hookyard serve` (environment or HOOKS_CONFIG_FILE) with its default and whether a reload applies it')
    .action(() => {
      const docs = settingDocs();
      ctx.emit({ settings: docs }, () => {
        for (const d of docs) say(d.doc);
      });
    });
}
