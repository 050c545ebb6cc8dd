import { execFile } from 'node:child_process';
import { mkdtempSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import Redis from 'ioredis';
import ts from 'typescript';
import { requireRedis, uniquePrefix } from '../../../../test/support/services';

const run = promisify(execFile);
const ingress = join(__dirname, '..', '..');
const fixture = join(__dirname, 'fixtures', 'door-client.js');

let url: string;
let buildDir: string;
const prefix = uniquePrefix('limproc');

beforeAll(async () => {
  url = await requireRedis();
  // A JS build of the limiter's buckets alone (they import no @hookyard package), so two
  // plain node processes run exactly the code and key scheme the door runs.
  buildDir = mkdtempSync(join(tmpdir(), 'hookyard-limiter-'));
  for (const name of ['buckets', 'token-bucket']) {
    const source = readFileSync(join(ingress, 'src', 'limiter', `${name}.ts`), 'utf8');
    const out = ts.transpileModule(source, { compilerOptions: { module: ts.ModuleKind.CommonJS, target: ts.ScriptTarget.ES2022, esModuleInterop: true } });
    writeFileSync(join(buildDir, `${name}.js`), out.outputText);
  }
});

afterAll(async () => {
  rmSync(buildDir, { recursive: true, force: true });
  const admin = new Redis(url);
  const keys = await admin.keys(`${prefix}:*`);
  if (keys.length > 0) await admin.del(...keys);
  await admin.quit();
});

async function replica(attempts: number): Promise<{ allowed: number; storeDown: boolean }> {
  const { stdout } = await run(process.execPath, [fixture, buildDir, url, prefix, '0.001', '8', String(attempts), '198.51.100.20', 'shared'], {
    // The build sits in a temp dir: let it find ioredis and rate-limiter-flexible from the ingress package.
    env: { ...process.env, NODE_PATH: join(ingress, 'node_modules') },
    timeout: 20_000,
  });
  return JSON.parse(stdout) as { allowed: number; storeDown: boolean };
}

describe('flood limiter across processes', () => {
  it('two OS processes on one Redis share one burst between them, not one each', async () => {
    // Each replica alone would allow 8 (the burst); a token returns only every 1000 s.
    const [a, b] = await Promise.all([replica(8), replica(8)]);
    expect({ aDown: a.storeDown, bDown: b.storeDown }).toEqual({ aDown: false, bDown: false });
    expect(a.allowed + b.allowed).toBe(8);
    // And the bucket stays dry for a third replica.
    expect((await replica(3)).allowed).toBe(0);
  });
});
