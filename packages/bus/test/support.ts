/** Small helpers shared by the bus tests. */

/** Polls `check` until it holds; fails after `boundMs` saying what was awaited (a bound, not a timing assertion). */
export async function waitFor(what: string, check: () => boolean | Promise<boolean>, boundMs = 15_000): Promise<void> {
  const deadline = Date.now() + boundMs;
  while (!(await check())) {
    if (Date.now() > deadline) throw new Error(`gave up waiting for ${what} after ${boundMs} ms`);
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
}

/** A promise the test opens by hand. */
export function gate(): { wait: Promise<void>; open(): void } {
  let open!: () => void;
  const wait = new Promise<void>((resolve) => (open = resolve));
  return { wait, open };
}

export const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

export function ids(label: string, n: number): string[] {
  return Array.from({ length: n }, (_, i) => `${label}-${i}`);
}

/**
 * A TCP relay on 127.0.0.1 in front of a real server, so a test can cut the
 * connection (and refuse new ones) without touching the shared server.
 */
export async function startRelay(target: { host: string; port: number }) {
  const { createServer, connect } = await import('node:net');
  const sockets = new Set<import('node:net').Socket>();
  const server = createServer((client) => {
    const upstream = connect(target.port, target.host);
    sockets.add(client).add(upstream);
    const drop = () => {
      client.destroy();
      upstream.destroy();
      sockets.delete(client);
      sockets.delete(upstream);
    };
    client.on('error', drop).on('close', drop);
    upstream.on('error', drop).on('close', drop);
    client.pipe(upstream).pipe(client);
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const port = (server.address() as import('node:net').AddressInfo).port;
  return {
    url: `nats://127.0.0.1:${port}`,
    /** Drops every relayed connection and refuses new ones. */
    async cut() {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        for (const s of sockets) s.destroy();
      });
    },
    /** Accepts connections again on the same port. */
    async resume() {
      await new Promise<void>((resolve) => server.listen(port, '127.0.0.1', resolve));
    },
    async close() {
      for (const s of sockets) s.destroy();
      if (server.listening) await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
