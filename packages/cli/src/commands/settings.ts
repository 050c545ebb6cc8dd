import type { Command } from 'commander';
import { settingsDocs } from '@hookyard/core';
import { say } from '../output';
import type { CliContext } from '../context';

/** One documented setting: its variable and the doc line (with its default). */
export interface SettingDoc {
  variable: string;
  doc: string;
}

/** The doc lines read `VARIABLE[ (note)]: text (default ...)`; the variable is the leading name. */
export function settingDocs(): SettingDoc[] {
  return settingsDocs().map((doc) => ({ variable: /^[A-Z0-9_]+/.exec(doc)?.[0] ?? doc, doc }));
}

/** `hookyard settings`: every environment variable `serve` reads, with its default. Needs no server. */
export function settingsCommand(program: Command, ctx: CliContext): void {
  program
    .command('settings')
    .description('list every setting (environment variable) of `hookyard serve` with its default')
    .action(() => {
      const docs = settingDocs();
      ctx.emit({ settings: docs }, () => {
        for (const d of docs) say(d.doc);
      });
    });
}
