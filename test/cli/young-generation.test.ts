import { requireBuiltCli, startRole, type RoleProcess } from '../support/processes';

/**
 * `hookyard serve` starts node again with an 8 MiB semi-space and holds V8's
 * young generation at its starting size until the role listens
 * (packages/cli/src/heap.ts): start-up alone would grow it to its full size and
 * leave those pages in an idle role's RSS. Read from the role's own /metrics
 * right after it listens; the operator's own semi-space size is the contrast
 * (V8 grows the young generation during the same start-up).
 */
const ADMIN = 'young-generation-test-admin-token-0123';
const MiB = 2 ** 20;

async function newSpaceAtStart(env: Record<string, string>): Promise<number> {
  let server: RoleProcess | undefined;
  try {
    server = startRole('young', 'all', { HOOKS_API_TOKENS: `admin:${ADMIN}`, ...env });
    const url = await server.waitListening();
    const text = await (await fetch(`${url}/metrics`, { headers: { authorization: `Bearer ${ADMIN}` } })).text();
    const m = /^hookyard_nodejs_heap_space_size_total_bytes\{space="new"[^}]*\} (\d+)/m.exec(text);
    if (!m) throw new Error(`no new-space size in /metrics:\n${text.slice(0, 500)}`);
    return Number(m[1]);
  } finally {
    await server?.stop();
  }
}

beforeAll(() => requireBuiltCli());

it('an idle role keeps the young generation at its starting size; its own semi-space flag leaves V8 to grow it', async () => {
  const ours = await newSpaceAtStart({});
  // Two semi-spaces of 1 MiB where V8 starts them (held), against up to 2 x 8 MiB once grown.
  expect(ours).toBeLessThanOrEqual(4 * MiB);
  const theirs = await newSpaceAtStart({ NODE_OPTIONS: '--max-semi-space-size=8' });
  expect(theirs).toBeGreaterThan(4 * MiB);
}, 60_000);
