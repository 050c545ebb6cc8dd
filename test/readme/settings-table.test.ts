/**
 * The manual's settings table (docs/settings.md) is the registry's: one row per setting with its
 * default and whether a reload applies it, as `hookyard settings --markdown`
 * prints it. Regenerate with `node packages/cli/bin/hookyard.js settings --markdown`.
 */
import { LIVE_SETTINGS, SETTINGS_REGISTRY } from '@hookyard/core';
import { settingsMarkdown } from '../../packages/cli/src/commands/settings';
import { manualSection } from '../support/manual';

describe('README settings table', () => {
  const section = manualSection('docs/settings.md', '## Settings');

  it('is exactly the table the registry prints', () => {
    const table = section.split('\n').filter((l) => l.startsWith('| `HOOKS_') || l.startsWith('| variable |') || l === '|---|---|---|---|');
    expect(table).toEqual(settingsMarkdown());
    expect(table.length - 2).toBe(Object.keys(SETTINGS_REGISTRY).length);
  });

  it('names every live setting in the section that says how it applies', () => {
    const how = section.slice(section.indexOf('How each live setting applies'), section.indexOf('**Each process reloads itself.**'));
    const named = (v: string) =>
      how.includes(`\`${v}\``) ||
      (v.startsWith('HOOKS_RUN_RETRY_') && how.includes('retry base, cap')) ||
      (v === 'HOOKS_RUN_MAX_ATTEMPTS' && how.includes('and attempts')) ||
      (/^HOOKS_(DOOR|API)_(RATE|BURST)$/.test(v) && how.includes('door and API rates and bursts'));
    expect(LIVE_SETTINGS.filter((v) => !named(v))).toEqual([]);
  });
});
