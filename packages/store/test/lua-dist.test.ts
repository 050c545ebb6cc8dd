import { cpSync, mkdtempSync, readdirSync, rmSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { SCRIPT_NAMES, loadScript } from '../src/redis/scripts';

const DIST = join(__dirname, '..', 'dist', 'redis');
// The compiled loader, as the services and the image run it (jest's globalSetup has checked dist is fresh).
// eslint-disable-next-line @typescript-eslint/no-require-imports
const compiled = () => require(join(DIST, 'scripts.js')) as { loadScript(name: string): string };

describe('Lua scripts ship in dist/', () => {
  it('the build copies every script beside the compiled loader, which reads them there', () => {
    const shipped = readdirSync(join(DIST, 'lua')).sort();
    expect(shipped).toEqual(readdirSync(join(__dirname, '..', 'src', 'redis', 'lua')).sort());
    for (const name of SCRIPT_NAMES) expect(compiled().loadScript(name)).toBe(loadScript(name));
  });

  it('the compiled loader never falls back to src: without its lua/ folder it says to build', () => {
    const dir = mkdtempSync(join(tmpdir(), 'hy-lua-'));
    try {
      // The whole compiled store but the scripts (the loader requires its neighbours, e.g. replies.js).
      cpSync(join(DIST, '..'), dir, { recursive: true, filter: (src) => src !== join(DIST, 'lua') });
      // eslint-disable-next-line @typescript-eslint/no-require-imports
      const alone = require(join(dir, 'redis', 'scripts.js')) as { loadScript(name: string): string };
      expect(() => alone.loadScript('claim')).toThrow(/Lua scripts not found in .*redis[/\\]lua: build the store with `pnpm build`/);
    } finally {
      rmSync(dir, { recursive: true, force: true });
    }
  });

  it('the package publishes dist only', () => {
    // eslint-disable-next-line @typescript-eslint/no-require-imports
    expect((require('../package.json') as { files: string[] }).files).toEqual(['dist']);
  });
});
